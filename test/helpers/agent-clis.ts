// The pinned real agent CLIs (scripts/agent-clis.json), installed by scripts/install-agents.sh
// into a cache outside the repository, and the environment a relay needs to run them as its
// workers in tests: the pinned bin folders first on PATH, a HOME of its own (no sign-in, no
// settings and no history of the machine's user leak into a test, and tests leave nothing
// behind), and one shared XDG cache (Copilot unpacks ~235 MB there on its first start).
import { accessSync, constants, existsSync, mkdtempSync, readFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));

export interface AgentCli {
  provider: "claude" | "copilot" | "grok" | "gemini" | "codex" | "opencode" | "qwen";
  package: string;
  version: string;
  bin: string;
}

export const AGENT_CLIS: readonly AgentCli[] = JSON.parse(
  readFileSync(join(ROOT, "scripts", "agent-clis.json"), "utf8"),
);

export const AGENTS_CACHE = process.env.OAR_AGENTS_CACHE || join(homedir(), ".cache", "oar-agents");

export function cliFor(provider: AgentCli["provider"]): AgentCli {
  return AGENT_CLIS.find((c) => c.provider === provider)!;
}

/** The folder holding the CLI's executable (the install script's layout). */
export function binDir(cli: AgentCli): string {
  return join(AGENTS_CACHE, `${cli.package}@${cli.version}`, "node_modules", ".bin");
}

export function binPath(provider: AgentCli["provider"]): string {
  const cli = cliFor(provider);
  return join(binDir(cli), cli.bin);
}

/** Why a provider's real-CLI tests cannot run here (to skip them with), or undefined. */
export function missingCli(provider: AgentCli["provider"]): string | undefined {
  const cli = cliFor(provider);
  try {
    if (!existsSync(join(AGENTS_CACHE, `${cli.package}@${cli.version}`, ".oar-installed"))) throw new Error();
    accessSync(join(binDir(cli), cli.bin), constants.X_OK);
    return undefined;
  } catch {
    return `${cli.package}@${cli.version} is not installed in ${AGENTS_CACHE}: run scripts/install-agents.sh`;
  }
}

/** PATH with the pinned CLIs' folders in front (all, or only those of `providers`). */
export function agentPath(providers?: readonly AgentCli["provider"][], base = process.env.PATH ?? ""): string {
  return [...AGENT_CLIS.filter((c) => !providers || providers.includes(c.provider)).map(binDir), base].join(":");
}

/**
 * The environment for a relay (TestRelay `env`) whose workers are the real CLIs of
 * `providers`. Variables
 * that would let the machine's own set-up leak in are removed; `extra` adds a provider's
 * offline set-up (ANTHROPIC_BASE_URL, COPILOT_PROVIDER_BASE_URL, OAR_GROK_BASE_URL, …).
 */
export function agentRelayEnv(
  providers: readonly AgentCli["provider"][],
  extra: Record<string, string | undefined> = {},
): Record<string, string | undefined> {
  const home = mkdtempSync(join(tmpdir(), "oar-agent-home-"));
  return {
    // Only the CLIs under test: the relay probes every installed CLI at start, and each cold
    // start costs seconds of CPU on a shared machine.
    PATH: agentPath(providers),
    HOME: home,
    XDG_CACHE_HOME: join(AGENTS_CACHE, "xdg-cache"),
    XDG_CONFIG_HOME: undefined,
    XDG_DATA_HOME: undefined,
    XDG_STATE_HOME: undefined,
    ANTHROPIC_API_KEY: undefined,
    ANTHROPIC_AUTH_TOKEN: undefined,
    ANTHROPIC_BASE_URL: undefined,
    CLAUDE_CODE_OAUTH_TOKEN: undefined,
    CLAUDE_CONFIG_DIR: undefined,
    COPILOT_GITHUB_TOKEN: undefined,
    GH_TOKEN: undefined,
    GITHUB_TOKEN: undefined,
    COPILOT_OFFLINE: undefined,
    COPILOT_PROVIDER_BASE_URL: undefined,
    COPILOT_PROVIDER_API_KEY: undefined,
    COPILOT_MODEL: undefined,
    XAI_API_KEY: undefined,
    OAR_GROK_BASE_URL: undefined,
    OAR_FAKE_PROVIDERS: undefined,
    GEMINI_API_KEY: undefined,
    GOOGLE_API_KEY: undefined,
    GOOGLE_GEMINI_BASE_URL: undefined,
    GEMINI_MODEL: undefined,
    CODEX_HOME: undefined,
    CODEX_API_KEY: undefined,
    OPENAI_API_KEY: undefined,
    OPENAI_BASE_URL: undefined,
    OPENAI_MODEL: undefined,
    OPENCODE_CONFIG: undefined,
    OPENCODE_CONFIG_CONTENT: undefined,
    ...extra,
  };
}
