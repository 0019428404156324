// The relay's side of our own agent (DeepSeek and OpenAI-compatible endpoints), in one place:
// how the worker is launched and what environment it gets (only its own secret), whether the
// provider is available (set up, and the last probe of its models endpoint), the model list
// that probe discovered, and the per-turn settings the agent reads from `_meta.oar`.

import { createHash } from "node:crypto";
import type { ProviderAdapter } from "../adapters/types.ts";
import { setProbeResult } from "../probe-cache.ts";
import { ENV } from "./config.ts";
import { ownProgram } from "../../core/package-paths.ts";

export const OPENAI_AGENT_PROVIDERS = ["deepseek", "openai-compatible"] as const;
type AgentProvider = (typeof OPENAI_AGENT_PROVIDERS)[number];
export const isOpenAiAgent = (id: string): id is AgentProvider =>
  (OPENAI_AGENT_PROVIDERS as readonly string[]).includes(id);

// From dist/ (no compiler in the worker) when the relay runs from it: core/package-paths.ts.
const AGENT = "src/providers/openai-agent/agent.ts";
type Settings = Record<string, unknown>;
const text = (v: unknown) => (typeof v === "string" && v.trim() !== "" ? v.trim() : null);

interface Endpoint {
  name: string;
  baseUrl: string | null;
  apiKey: string | null;
  settingsHint: string;
}

function endpointOf(id: AgentProvider, s: Settings): Endpoint {
  if (id === "deepseek") {
    return {
      name: "DeepSeek",
      baseUrl: text(s.deepseekBaseUrl) ?? "https://api.deepseek.com",
      apiKey: text(s.deepseekApiKey),
      settingsHint: "Settings → Providers → DeepSeek",
    };
  }
  return {
    name: text(s.openaiCompatibleName) ?? "OpenAI-compatible",
    baseUrl: text(s.openaiCompatibleBaseUrl),
    apiKey: text(s.openaiCompatibleApiKey),
    settingsHint: "Settings → Providers → OpenAI-compatible",
  };
}

/** The display name (the owner names an OpenAI-compatible endpoint). */
export function openAiAgentName(id: string, settings: Settings, fallback: string): string {
  return isOpenAiAgent(id) ? endpointOf(id, settings).name : fallback;
}

/** The two adapters (adapters/types.ts): the same agent process, told which endpoint it serves. */
function adapter(
  id: AgentProvider,
  secret: "deepseekApiKey" | "openaiCompatibleApiKey",
  signIn: string,
): ProviderAdapter {
  return {
    id,
    secretSettings: [secret],
    secretEnv: [ENV.apiKey],
    launch: (ctx) => (configured(id, endpointOf(id, ctx.settings)) ? openAiAgentLaunch(id, ctx.settings) : null),
    signIn,
    // Our agent advertises exactly the relay's modes; ask and plan ask session/request_permission itself.
    modes: { agent: ["agent"], ask: ["ask"], plan: ["plan"] },
  };
}
export const deepseekAdapter = adapter(
  "deepseek",
  "deepseekApiKey",
  "add a DeepSeek API key in Settings → Providers → DeepSeek",
);
export const openaiCompatibleAdapter = adapter(
  "openai-compatible",
  "openaiCompatibleApiKey",
  "set the endpoint's base URL (and key, if it needs one) in Settings → Providers → OpenAI-compatible",
);

/** How the relay starts the agent process; its environment holds only this provider's secret. */
export function openAiAgentLaunch(id: AgentProvider, settings: Settings) {
  const e = endpointOf(id, settings);
  const env: Record<string, string> = { [ENV.provider]: id, [ENV.name]: e.name };
  if (e.baseUrl) env[ENV.baseUrl] = e.baseUrl;
  if (e.apiKey) env[ENV.apiKey] = e.apiKey;
  return { ...ownProgram(AGENT), env };
}

/** What the agent reads from `_meta.oar` besides model/effort/mode: the compaction window. */
export function openAiAgentMeta(provider: string, extraJson: string | null | undefined): Record<string, unknown> {
  if (!isOpenAiAgent(provider)) return {};
  try {
    const w = (JSON.parse(extraJson || "{}") as { autoCompactWindow?: unknown }).autoCompactWindow;
    return w === "auto" || typeof w === "number" ? { autoCompactWindow: w } : {};
  } catch {
    return {};
  }
}

// ---- probing the models endpoint ----

interface Probe {
  key: string;
  checkedAt: number;
  models: string[] | null;
  /** Why the provider cannot be used, from the probe (401, unreachable). */
  reason?: string;
}

const probes = new Map<AgentProvider, Probe>();
const inFlight = new Map<string, Promise<void>>();
const FRESH_MS = 10 * 60_000;
const RETRY_MS = 30_000;

const probeKey = (e: Endpoint) =>
  `${e.baseUrl}\0${createHash("sha256")
    .update(e.apiKey ?? "")
    .digest("hex")}`;

function configured(id: AgentProvider, e: Endpoint): boolean {
  return id === "deepseek" ? e.apiKey !== null : e.baseUrl !== null;
}

/** Providers the test switch OAR_FAKE_PROVIDERS (catalog.ts) runs on the scripted agent: never probed. */
const faked = (id: string) =>
  (process.env.OAR_FAKE_PROVIDERS ?? "").split(",").some((e) => e.split("=")[0].trim() === id);

/** Probes each configured endpoint whose last probe is stale or for other settings; waits at most
 * `waitMs` (a probe still running finishes in the background and counts from then on). */
export async function refreshOpenAiAgents(settings: Settings, force = false, waitMs = 3000): Promise<void> {
  const all = Promise.all(
    OPENAI_AGENT_PROVIDERS.map((id) => {
      const e = endpointOf(id, settings);
      if (!configured(id, e) || faked(id)) {
        probes.delete(id);
        return null;
      }
      const key = probeKey(e);
      const last = probes.get(id);
      const age = last?.key === key ? Date.now() - last.checkedAt : Infinity;
      if (!force && age < (last?.reason ? RETRY_MS : FRESH_MS)) return null;
      const flightKey = `${id}\0${key}`;
      let p = inFlight.get(flightKey);
      if (!p) {
        p = probe(id, e, key).finally(() => inFlight.delete(flightKey));
        inFlight.set(flightKey, p);
      }
      return p;
    }),
  );
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([all, new Promise((r) => (timer = setTimeout(r, waitMs)))]);
  clearTimeout(timer);
}

// A plain GET (not the openai SDK): the relay itself stays light to start; the agent process uses the SDK.
async function probe(id: AgentProvider, e: Endpoint, key: string): Promise<void> {
  const result: Probe = { key, checkedAt: Date.now(), models: null };
  try {
    const res = await fetch(`${e.baseUrl!.replace(/\/+$/, "")}/models`, {
      headers: { authorization: `Bearer ${e.apiKey ?? "none"}`, accept: "application/json" },
      signal: AbortSignal.timeout(5000),
    });
    if (res.status === 401 || res.status === 403)
      result.reason = `${e.name} refused the API key (${res.status}): set a valid key in ${e.settingsHint}`;
    else if (res.ok) {
      const body = (await res.json()) as { data?: { id?: unknown }[] };
      result.models = (body.data ?? []).map((m) => m.id).filter((m): m is string => typeof m === "string" && m !== "");
    }
    // Other answers (404: no models endpoint) leave the provider usable without a list.
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
    result.reason = `${e.name} could not be reached at ${e.baseUrl} (${cause}): check that it runs and the base URL in ${e.settingsHint}`;
  }
  probes.set(id, result);
  // The relay's probe cache: the catalog's discovered model lists and GET /api/providers' checkedAt read it.
  setProbeResult(id, {
    available: !result.reason,
    ...(result.reason ? { reason: result.reason } : {}),
    models: result.models?.length ? result.models : null,
    checkedAt: result.checkedAt,
  });
}

/** Availability for relay_info and create_session: set up, and not refused by its last probe. */
export function openAiAgentAvailability(
  id: AgentProvider,
  settings: Settings,
): { available: boolean; reason?: string } {
  const e = endpointOf(id, settings);
  if (!configured(id, e)) {
    const what = id === "deepseek" ? "an API key" : "its base URL (and a key if the endpoint needs one)";
    return { available: false, reason: `${e.name} is not set up on this relay: add ${what} in Settings → Providers` };
  }
  const last = probes.get(id);
  if (last?.key === probeKey(e) && last.reason) return { available: false, reason: last.reason };
  return { available: true };
}
