import { execFile } from "node:child_process";
import { setPriority } from "node:os";

// git as a child process, never through a shell. It must not stop to ask for a password (a
// relay has no terminal), and the `ext::` transport, which runs a command named in the URL,
// stays off whatever the machine's git configuration says.
export interface GitResult {
  ok: boolean;
  code: number | null;
  stdout: string;
  stderr: string;
}

const SAFE = ["-c", "protocol.ext.allow=never"];

export interface GitOptions {
  cwd?: string;
  timeoutMs?: number;
  /** Added to the environment (identity for a commit, a scratch GIT_INDEX_FILE). */
  env?: Record<string, string>;
  /** Largest output kept before git is stopped (default 16 MB). */
  maxBuffer?: number;
  /** Work done ahead of need (a spare checkout): git and what it starts run at the lowest
   * CPU priority, so they take no core from work someone waits for. */
  background?: boolean;
  /** Aborted: git and every process it started are ended at once (their own process group). */
  signal?: AbortSignal;
}

export type Git = (args: string[], opts?: GitOptions) => Promise<GitResult>;

// Variables git sets for its hooks: a relay started from inside a hook (a test run in a
// pre-commit hook) would otherwise aim every command at that one repository and index.
const INHERITED_REPO_VARS = [
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_INDEX_FILE",
  "GIT_OBJECT_DIRECTORY",
  "GIT_COMMON_DIR",
  "GIT_PREFIX",
];

function gitEnv(extra: Record<string, string> | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    GIT_TERMINAL_PROMPT: "0",
    GIT_SSH_COMMAND: process.env.GIT_SSH_COMMAND ?? "ssh -o BatchMode=yes",
  };
  for (const k of INHERITED_REPO_VARS) delete env[k];
  return { ...env, ...extra };
}

export function git(args: string[], opts: GitOptions = {}): Promise<GitResult> {
  return new Promise((resolve) => {
    const child = execFile(
      "git",
      [...SAFE, ...args],
      {
        cwd: opts.cwd,
        timeout: opts.timeoutMs ?? 60_000,
        maxBuffer: opts.maxBuffer ?? 16 * 1024 * 1024,
        env: gitEnv(opts.env),
        ...(opts.signal ? { detached: true } : {}),
      },
      (err, stdout, stderr) => {
        const code = err
          ? typeof (err as { code?: unknown }).code === "number"
            ? (err as { code: number }).code
            : null
          : 0;
        const killed = err && (err as { killed?: boolean }).killed;
        const overflow = err && (err as { code?: unknown }).code === "ERR_CHILD_PROCESS_STDIO_MAXBUFFER";
        const why = overflow
          ? `git wrote more than ${Math.round((opts.maxBuffer ?? 16 * 1024 * 1024) / 1024 / 1024)} MB and was stopped.`
          : `git did not finish within ${Math.round((opts.timeoutMs ?? 60_000) / 1000)} s and was stopped.`;
        resolve({
          ok: !err,
          code,
          stdout: String(stdout),
          stderr: killed || overflow ? `${stderr}\n${why}` : String(stderr),
        });
      },
    );
    // Set before git has started what it runs (children take their parent's priority).
    if (opts.background && child.pid) {
      try {
        setPriority(child.pid, 19);
      } catch {}
    }
    const pid = child.pid;
    if (opts.signal && pid) {
      const end = () => {
        try {
          process.kill(-pid, "SIGKILL");
        } catch {}
      };
      if (opts.signal.aborted) end();
      else {
        opts.signal.addEventListener("abort", end, { once: true });
        child.once("exit", () => opts.signal?.removeEventListener("abort", end));
      }
    }
  });
}

/** git's own words for a failure: its `fatal:`/`error:` lines, or the end of what it wrote. */
export function gitWords(r: GitResult): string {
  const lines = r.stderr
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  const said = lines.filter(
    (l) => /^(fatal|error|remote|!|hint: Updates were rejected)/i.test(l) || l.includes("[rejected]"),
  );
  return (said.length ? said : lines.slice(-3)).join(" ").slice(0, 600) || `git exited with code ${r.code}`;
}
