import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join } from "node:path";
import { CAP_CODE, capReason, capState } from "../billing/cap.ts";
import { adapterFor } from "./adapters/index.ts";
import { discoveredModels, probeResult } from "./probe-cache.ts";
import { isOpenAiAgent, openAiAgentAvailability } from "./openai-agent/provider.ts";
import { customProvider, customProviders } from "./custom-agents.ts";
import type { ProviderId } from "../core/provider-ids.ts";
import { Effort } from "../sessions/types.ts";

// The providers a relay can host (contract §4.1), as data: relay_info, New Chat, the model
// check and the launcher all read this one table instead of keeping their own lists.

export { PROVIDER_IDS, ProviderId } from "../core/provider-ids.ts";

export interface ProviderInfo {
  /** A built-in id, or a custom agent's (setting customAgents). */
  id: ProviderId | (string & {});
  name: string;
  defaultModel: string;
  /** null: no list known yet (discovery not run or failed); models then pass unchecked. */
  models: readonly string[] | null;
  efforts: readonly Effort[];
  /** CLI providers: the binary on PATH, its ACP arguments, and how the owner installs it. */
  command?: string;
  args?: readonly string[];
  install?: string;
  /** Key providers: the owner setting that must hold a secret, and what that secret is called. */
  setting?: string;
  secret?: string;
  /** An ACP agent the owner configured (setting customAgents). */
  custom?: boolean;
}

// Anthropic ids use hyphens; Copilot names the same models with dots (STACK.md), so the two
// lists must never be shared.
const CLAUDE_MODELS = ["claude-opus-5-5", "claude-sonnet-5-5", "claude-haiku-5"] as const;
const CLAUDE_EFFORTS: readonly Effort[] = Effort.options;
const EFFORTS: readonly Effort[] = ["low", "medium", "high"];

export const CATALOG: Readonly<Record<ProviderId, ProviderInfo>> = {
  claude: {
    id: "claude",
    name: "Claude",
    defaultModel: "claude-opus-5-5",
    models: CLAUDE_MODELS,
    efforts: CLAUDE_EFFORTS,
    command: "claude-agent-acp",
    args: [],
    install: "npm i -g @agentclientprotocol/claude-agent-acp",
  },
  // Billed per token, so it starts on the cheaper model; the subscription starts on Opus.
  "claude-api": {
    id: "claude-api",
    name: "Claude API",
    defaultModel: "claude-sonnet-5-5",
    models: CLAUDE_MODELS,
    efforts: CLAUDE_EFFORTS,
    setting: "claudeApiKey",
    secret: "an API key",
  },
  "claude-cloud": {
    id: "claude-cloud",
    name: "Claude Cloud",
    defaultModel: "claude-opus-5-5",
    models: CLAUDE_MODELS,
    efforts: CLAUDE_EFFORTS,
    setting: "claudeCloudToken",
    secret: "a cloud token",
  },
  copilot: {
    id: "copilot",
    name: "Copilot",
    defaultModel: "claude-sonnet-5.5",
    models: ["claude-opus-5.5", "claude-sonnet-5.5", "gpt-5.4", "gpt-5.4-mini", "gemini-3-pro"],
    efforts: EFFORTS,
    // Copilot ignores stdio MCP entries in session/new (its issue #3889); the launcher passes http.
    command: "copilot",
    args: ["--acp", "--stdio"],
    install: "npm i -g @github/copilot",
  },
  grok: {
    id: "grok",
    name: "Grok",
    defaultModel: "grok-5",
    models: ["grok-5", "grok-5-fast"],
    efforts: EFFORTS,
    command: "grok",
    args: ["agent", "stdio"],
    install: "npm i -g @xai-official/grok",
  },
  // No first-party CLI: our own agent (openai-agent/) runs the tool loop over DeepSeek's API, so a key is all it needs.
  deepseek: {
    id: "deepseek",
    name: "DeepSeek",
    defaultModel: "deepseek-v4",
    models: ["deepseek-v4", "deepseek-v4-reasoner"],
    efforts: EFFORTS,
    setting: "deepseekApiKey",
    secret: "an API key",
  },
  "openai-image": {
    id: "openai-image",
    name: "OpenAI Image",
    defaultModel: "gpt-image-2",
    models: ["gpt-image-2"],
    efforts: EFFORTS,
    setting: "openaiApiKey",
    secret: "an API key",
  },
  // The built-in test agent: nothing to install or set up, so CI can always use it.
  scripted: {
    id: "scripted",
    name: "Scripted",
    defaultModel: "scripted-1",
    models: ["scripted-1", "scripted-2"],
    efforts: EFFORTS,
  },
  // Any chat-completions endpoint (contract §9.2), same agent as DeepSeek; models come from the endpoint.
  "openai-compatible": {
    id: "openai-compatible",
    name: "OpenAI-compatible",
    defaultModel: "default",
    models: null,
    efforts: EFFORTS,
    setting: "openaiCompatibleBaseUrl",
    secret: "its base URL",
  },
  // Contract §10.2: four more ACP CLIs. Their model lists come from what each advertises at
  // session/new (probes.ts); the lists here stand until the first probe answered.
  gemini: {
    id: "gemini",
    name: "Gemini",
    defaultModel: "auto",
    models: ["auto", "gemini-2.5-pro", "gemini-3.8-flash", "gemini-3.5-flash-lite"],
    efforts: EFFORTS,
    command: "gemini",
    args: ["--acp"],
    install: "npm i -g @google/gemini-cli",
  },
  codex: {
    id: "codex",
    name: "Codex",
    defaultModel: "gpt-6.1-sol",
    models: ["gpt-6.1-sol", "gpt-6-astra", "gpt-6-sol", "gpt-6-luna", "gpt-5.5"],
    efforts: EFFORTS,
    command: "codex-acp",
    args: [],
    install: "npm i -g @agentclientprotocol/codex-acp",
  },
  opencode: {
    id: "opencode",
    name: "opencode",
    defaultModel: "opencode/big-pickle",
    models: null,
    efforts: EFFORTS,
    command: "opencode",
    args: ["acp"],
    install: "npm i -g opencode-ai",
  },
  qwen: {
    id: "qwen",
    name: "Qwen Code",
    defaultModel: "default",
    models: null,
    efforts: EFFORTS,
    command: "qwen",
    args: ["--acp"],
    install: "npm i -g @qwen-code/qwen-code",
  },
};

export function getProvider(id: string): ProviderInfo | undefined {
  return Object.hasOwn(CATALOG, id) ? CATALOG[id as ProviderId] : customProvider(id);
}

/** Every provider of this relay: the built-in ones, then the owner's custom agents. */
export function providerList(): ProviderInfo[] {
  return [...Object.values(CATALOG), ...customProviders()];
}

/** Discovered model lists that replace the catalog's; `null` means discovery ran and failed. */
export type ModelCatalogs = Partial<Record<string, readonly string[] | null>>;

/** The list New Chat and relay_info offer for a provider: a discovered list wins over the table.
 * Left out, `catalogs` is what this process discovered (today: only the test switch below). */
export function modelsOf(
  provider: ProviderInfo,
  catalogs: ModelCatalogs | undefined = discoveredCatalogs(),
): readonly string[] | null {
  return catalogs && Object.hasOwn(catalogs, provider.id) ? (catalogs[provider.id] ?? null) : provider.models;
}

/**
 * TEST-ONLY switch, read from the environment of the relay process and never set in
 * production: OAR_FAKE_PROVIDERS="claude,claude-api=claude-sonnet-5-5|claude-haiku-5,grok=?"
 * - each listed provider's sessions run the scripted agent instead of the real CLI;
 * - a CLI provider listed counts as installed (a key provider still needs its key setting,
 *   so tests can have it set up or not);
 * - `=a|b` replaces its model list as if model discovery had found those ids;
 *   `=?` stands for a discovery that failed (no list: models pass unchecked).
 * It lets the rules of providers whose CLIs cannot run here be tested through relay_tool.
 */
export interface FakeProviders {
  ids: ReadonlySet<string>;
  catalogs: ModelCatalogs;
}

let fakeCache: { raw: string; value: FakeProviders } | undefined;

export function fakeProviders(raw: string = process.env.OAR_FAKE_PROVIDERS ?? ""): FakeProviders {
  if (fakeCache?.raw === raw) return fakeCache.value;
  const ids = new Set<string>();
  const catalogs: Record<string, readonly string[] | null> = {};
  for (const entry of raw
    .split(",")
    .map((e) => e.trim())
    .filter(Boolean)) {
    const [id, list] = entry.split("=", 2).map((x) => x.trim());
    if (!getProvider(id) || id === "scripted") continue;
    ids.add(id);
    if (list === "?") catalogs[id] = null;
    else if (list)
      catalogs[id] = list
        .split("|")
        .map((m) => m.trim())
        .filter(Boolean);
  }
  fakeCache = { raw, value: { ids, catalogs } };
  return fakeCache.value;
}

/** Model lists found by discovery in this process; the catalog table is used for the rest. */
export function discoveredCatalogs(): ModelCatalogs {
  return { ...discoveredModels(), ...fakeProviders().catalogs };
}

/** The model a session gets when none is asked: the table's, unless discovery found a list without it. */
export function defaultModelOf(
  provider: ProviderInfo,
  catalogs: ModelCatalogs | undefined = discoveredCatalogs(),
): string {
  const list = modelsOf(provider, catalogs);
  return list?.length && !list.includes(provider.defaultModel) ? list[0] : provider.defaultModel;
}

export interface AvailabilityEnv {
  settings: Record<string, unknown>;
  which?: (cmd: string) => boolean;
}
export interface Availability {
  available: boolean;
  reason?: string;
  /** The relay's own code for why, where it has one (CLAUDE_API_CAP_REACHED). */
  code?: string;
}

export function providerAvailability(id: string, env: AvailabilityEnv): Availability {
  const p = getProvider(id);
  if (!p) return { available: false, reason: `There is no provider '${id}' on this relay` };
  if (p.command) {
    if (fakeProviders().ids.has(p.id)) return { available: true };
    if (!(env.which ?? which)(p.command)) {
      if (p.custom)
        return {
          available: false,
          reason: `${p.name}'s command \`${p.command}\` was not found on this relay (not on the relay's PATH, or not executable): fix it in Settings → Providers → Custom agents`,
        };
      return { available: false, reason: `${p.command} is not installed on this relay (${p.install})` };
    }
    // Installed: signed in or not is what the last probe found (until it answers, installed is all that is known).
    const probe = probeResult(p.id);
    return probe && !probe.available ? { available: false, reason: probe.reason } : { available: true };
  }
  if (isOpenAiAgent(p.id) && !fakeProviders().ids.has(p.id)) return openAiAgentAvailability(p.id, env.settings);
  if (p.setting) {
    const value = env.settings[p.setting];
    if (typeof value !== "string" || value.trim() === "") {
      return {
        available: false,
        reason: `${p.name} is not set up on this relay: add ${p.secret} in Settings → Providers`,
      };
    }
    // A key provider that runs a CLI (Claude API runs the Claude ACP adapter) needs it installed too.
    const bin = adapterFor(p.id)?.binary;
    if (bin && !fakeProviders().ids.has(p.id)) {
      if (!(env.which ?? which)(bin))
        return {
          available: false,
          reason: `${bin} is not installed on this relay (${Object.values(CATALOG).find((c) => c.command === bin)?.install ?? `install ${bin}`}); ${p.name} runs through it`,
        };
      const probe = probeResult(p.id);
      if (probe && !probe.available) return { available: false, reason: probe.reason };
    }
  }
  if (p.id === "claude-api") {
    const cap = capState(env.settings);
    if (cap.reached) return { available: false, reason: capReason(cap), code: CAP_CODE };
  }
  return { available: true };
}

// Availability is asked on every relay_info and create_session; PATH does not change under a
// running relay, so each lookup is done once per process (keyed by PATH so tests may change it).
const whichCache = new Map<string, boolean>();

/** Whether `cmd` is an executable file in a PATH directory. Synchronous on purpose: cached after the first call. */
export function which(cmd: string): boolean {
  const path = process.env.PATH ?? "";
  const key = `${path}\0${cmd}`;
  const hit = whichCache.get(key);
  if (hit !== undefined) return hit;
  // A path (a custom agent's command may be one): that file itself.
  if (cmd.includes("/")) return isExecutable(cmd);
  const exts = process.platform === "win32" ? ["", ...(process.env.PATHEXT ?? ".EXE;.CMD").split(";")] : [""];
  const found = path
    .split(delimiter)
    .some((dir) => dir !== "" && exts.some((ext) => isExecutable(join(dir, cmd + ext))));
  whichCache.set(key, found);
  return found;
}

function isExecutable(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
