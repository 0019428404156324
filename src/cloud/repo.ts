import { isAbsolute } from "node:path";
import { RelayError } from "../core/errors.ts";

// What a Claude Cloud session's `repo` may be: any git URL (https, ssh, git, file), scp-like
// `user@host:path`, an absolute local path, or GitHub's `owner/name` shorthand. A URL may carry
// credentials (`https://user:token@host/…`): git keeps them in the clone's remote, but the
// relay shows and stores the address with them masked.

export interface RepoRef {
  /** What git is given. */
  url: string;
  /** What the relay stores and shows (credentials masked). */
  display: string;
}

const SCHEME = /^(https?|ssh|git|file):\/\//i;
const SCP = /^[\w.-]+@[\w.-]+:[^\s]+$/;
const SHORTHAND = /^[\w.-]+\/[\w.-]+$/;

export function parseRepo(raw: string, tail: string): RepoRef {
  const repo = raw.trim();
  // A leading dash would be read as an option by git; other transports (ext::, fd::) run things.
  if (!repo || repo.startsWith("-") || /\s/.test(repo) || /^[a-z][\w+.-]*::/i.test(repo)) {
    throw new RelayError(
      "REMOTE_RELAY_INVALID_INPUT",
      `repo "${mask(repo).slice(0, 200)}" is not a git repository address: give a git URL (https://…, ssh://…, git@host:path), an absolute path on this relay, or a GitHub "owner/name". ${tail}`,
    );
  }
  if (SCHEME.test(repo) || SCP.test(repo) || isAbsolute(repo)) return { url: repo, display: mask(repo) };
  if (SHORTHAND.test(repo)) return { url: `https://github.com/${repo.replace(/\.git$/, "")}.git`, display: repo };
  throw new RelayError(
    "REMOTE_RELAY_INVALID_INPUT",
    `repo "${mask(repo).slice(0, 200)}" is neither a git URL, an absolute path on this relay nor a GitHub "owner/name". ${tail}`,
  );
}

/** The address with any password or token in it replaced by ****. */
export function mask(url: string): string {
  return url.replace(
    /^([a-z][\w+.-]*:\/\/)([^/@\s]+)@/i,
    (_m, scheme: string, user: string) => `${scheme}${user.includes(":") ? `${user.split(":")[0]}:****` : "****"}@`,
  );
}

/** Masks the credentials of `url` wherever they appear in git's output. */
export function maskIn(text: string, url: string): string {
  const cred = /^[a-z][\w+.-]*:\/\/([^/@\s]+)@/i.exec(url)?.[1];
  return cred ? text.split(cred).join("****") : text;
}
