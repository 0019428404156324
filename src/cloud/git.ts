import { execFile } from "node:child_process";

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

export function git(args: string[], opts: { cwd?: string; timeoutMs?: number } = {}): Promise<GitResult> {
  return new Promise((resolve) => {
    execFile(
      "git",
      [...SAFE, ...args],
      {
        cwd: opts.cwd,
        timeout: opts.timeoutMs ?? 60_000,
        maxBuffer: 16 * 1024 * 1024,
        env: { ...process.env, GIT_TERMINAL_PROMPT: "0", GIT_SSH_COMMAND: process.env.GIT_SSH_COMMAND ?? "ssh -o BatchMode=yes" },
      },
      (err, stdout, stderr) => {
        const code = err ? (typeof (err as { code?: unknown }).code === "number" ? ((err as { code: number }).code) : null) : 0;
        const killed = err && (err as { killed?: boolean }).killed;
        resolve({ ok: !err, code, stdout: String(stdout), stderr: killed ? `${stderr}\ngit did not finish within ${Math.round((opts.timeoutMs ?? 60_000) / 1000)} s and was stopped.` : String(stderr) });
      },
    );
  });
}

/** git's own words for a failure: its `fatal:`/`error:` lines, or the end of what it wrote. */
export function gitWords(r: GitResult): string {
  const lines = r.stderr.split("\n").map((l) => l.trim()).filter(Boolean);
  const said = lines.filter((l) => /^(fatal|error|remote|!|hint: Updates were rejected)/i.test(l) || l.includes("[rejected]"));
  return (said.length ? said : lines.slice(-3)).join(" ").slice(0, 600) || `git exited with code ${r.code}`;
}
