// Puts the fake ACP agent (fake-acp-agent.ts) on PATH under the real CLIs' names, so a relay
// started with `withFakeClis` launches it through the very path it launches the real CLI.
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const AGENT = fileURLToPath(new URL("./fake-acp-agent.ts", import.meta.url));
const TSX = fileURLToPath(import.meta.resolve("tsx"));

export const CLI_NAMES = { claude: "claude-agent-acp", copilot: "copilot", grok: "grok", qwen: "qwen" } as const;
export type FakeProfile = keyof typeof CLI_NAMES;
/** Those on PATH unless `only` names others (Qwen Code's only when asked for). */
const DEFAULT_PROFILES: FakeProfile[] = ["claude", "copilot", "grok"];

/** A folder holding the fake CLIs (`only`, else Claude's, Copilot's and Grok's); `signedOut`
 * ones behave as not signed in. */
export function fakeCliDir(
  opts: { signedOut?: FakeProfile[]; only?: FakeProfile[]; env?: Record<string, string> } = {},
): string {
  const dir = mkdtempSync(join(tmpdir(), "oar-fake-cli-"));
  for (const [profile, name] of Object.entries(CLI_NAMES) as [FakeProfile, string][]) {
    if (!(opts.only ?? DEFAULT_PROFILES).includes(profile)) continue;
    const env = {
      FAKE_ACP_PROFILE: profile,
      ...(opts.signedOut?.includes(profile) ? { FAKE_ACP_SIGNED_OUT: "1" } : {}),
      ...(opts.env ?? {}),
    };
    const vars = Object.entries(env)
      .map(([k, v]) => `${k}='${v}'`)
      .join(" ");
    writeFileSync(join(dir, name), `#!/bin/sh\n${vars} exec '${process.execPath}' --import '${TSX}' '${AGENT}' "$@"\n`);
    chmodSync(join(dir, name), 0o755);
  }
  return dir;
}

/** Runs `fn` (a relay start) with `dir` first on PATH and `env` set, restoring both after. */
export async function withEnv<T>(env: Record<string, string | undefined>, fn: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  for (const [k, v] of Object.entries(env))
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(saved))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
  }
}
