// `/write` and `/commit` of the scripted agent (contract §10.1): file edits and commits an
// orchestration test can make without a model. A write goes through the client's
// `fs/write_text_file` when the client offered it in `initialize` (so the relay sees it and
// may refuse it, e.g. for a claim), else straight to the disk; either way it is reported as an
// ACP tool call of kind `edit` with its diff, as real agents report their edits.
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { git, gitWords } from "../../cloud/git.ts";
import { abortable, errorMessage, shortId } from "./util.ts";

export interface FileIo {
  /** The client offered `fs.writeTextFile`. */
  clientWrites: boolean;
  request(method: string, params: Record<string, unknown>, signal: AbortSignal): Promise<unknown>;
  update(update: Record<string, unknown>): Promise<void>;
}

/** Runs `/write PATH TEXT`; returns the reply line (a refusal), or null when written. */
export async function writeFile(
  sessionId: string,
  cwd: string,
  rest: string,
  io: FileIo,
  signal: AbortSignal,
): Promise<string | null> {
  const m = /^(\S+)(?:\s([\s\S]*))?$/.exec(rest);
  if (!m) return "write refused: /write needs a path and the text";
  const [, path, raw = ""] = m;
  const content = raw.replace(/\\n/g, "\n");
  const abs = resolve(cwd, path);
  if (!inside(cwd, abs)) return `write refused: ${path} is outside the session's folder`;
  const oldText = existsSync(abs) ? readFileSync(abs, "utf8") : null;
  const rel = relative(cwd, abs);
  const toolCallId = `write-${shortId()}`;
  await io.update({
    sessionUpdate: "tool_call",
    toolCallId,
    title: `Write ${rel}`,
    kind: "edit",
    status: "in_progress",
    locations: [{ path: abs }],
    // ACP's diff names the file by its absolute path, as its locations do.
    content: [{ type: "diff", path: abs, oldText, newText: content }],
    rawInput: { path: abs, content },
  });
  let refused: string | null = null;
  try {
    if (io.clientWrites)
      await abortable(io.request("fs/write_text_file", { sessionId, path: abs, content }, signal), signal);
    else {
      mkdirSync(dirname(abs), { recursive: true });
      writeFileSync(abs, content);
    }
  } catch (e) {
    if (signal.aborted) throw e;
    refused = reasonOf(e);
  }
  await io.update({
    sessionUpdate: "tool_call_update",
    toolCallId,
    status: refused ? "failed" : "completed",
    ...(refused ? { content: [{ type: "content", content: { type: "text", text: refused } }] } : {}),
  });
  return refused ? `write refused: ${refused}` : null;
}

/** Runs `/commit MESSAGE` (`git add -A`, `git commit -m MESSAGE` in the folder); returns
 * `commit: ` + the short id, or the error. Where git has no identity configured (a fresh CI
 * machine) the commit is signed `OAR scripted agent <scripted@localhost>`. */
export async function commit(cwd: string, message: string): Promise<string> {
  if (!message.trim()) return "commit: a commit needs a message (/commit MESSAGE)";
  const add = await git(["add", "-A"], { cwd });
  if (!add.ok) return `commit: ${gitWords(add)}`;
  const email = await git(["config", "--get", "user.email"], { cwd });
  const name = await git(["config", "--get", "user.name"], { cwd });
  const id = email.ok && name.ok ? [] : ["-c", "user.name=OAR scripted agent", "-c", "user.email=scripted@localhost"];
  const r = await git([...id, "commit", "-q", "-m", message], { cwd });
  if (!r.ok) return `commit: ${(r.stdout.trim() || gitWords(r)).split("\n").pop()}`;
  const short = await git(["rev-parse", "--short", "HEAD"], { cwd });
  return `commit: ${short.stdout.trim()}`;
}

/** The client's refusal in its words (an ACP error's message; the data's when it has words). */
function reasonOf(e: unknown): string {
  const data = (e as { data?: unknown } | null)?.data;
  if (typeof data === "string" && data) return data;
  const inner = data && typeof data === "object" ? (data as { message?: unknown; details?: unknown }) : {};
  if (typeof inner.message === "string" && inner.message) return inner.message;
  if (typeof inner.details === "string" && inner.details) return inner.details;
  return errorMessage(e);
}

/** Whether `file` stays inside `folder`, symbolic links resolved as far as the path exists. */
function inside(folder: string, file: string): boolean {
  const real = (p: string): string => {
    try {
      return realpathSync(p);
    } catch {
      const up = dirname(p);
      return up === p ? p : join(real(up), basename(p));
    }
  };
  const rel = relative(real(folder), real(file));
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
}
