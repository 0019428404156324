import type { Mode } from "../sessions/types.ts";
import type { Advertised, ProviderAdapter } from "./adapters/types.ts";

// How the relay's model, effort and mode reach a CLI: with the ACP calls the CLI advertised
// at session/new (real CLIs ignore `_meta`). configOptions win (ACP's current way: categories
// "model", "thought_level", "mode"); `modes` and the older `models` are the fallbacks.

export interface Advertisement {
  modes: { current: string | null; available: Advertised[] } | null;
  models: { current: string | null; available: Advertised[] } | null;
  configOptions: ConfigOption[];
}

export interface ConfigOption {
  id: string;
  category: string | null;
  type: string;
  current: unknown;
  options: Advertised[];
}

export interface Desired {
  model: string;
  effort: string | null;
  mode: Mode;
}

export type ConfigCall =
  | { method: "session/set_config_option"; configId: string; value: string; what: string }
  | { method: "session/set_mode"; modeId: string; what: string }
  | { method: "session/set_model"; modelId: string; what: string };

const obj = (v: unknown): Record<string, unknown> => (v && typeof v === "object" ? (v as Record<string, unknown>) : {});
const str = (v: unknown): string | null => (typeof v === "string" ? v : null);

/** Reads what session/new (or a config update) advertised, tolerating missing parts. */
export function readAdvertisement(res: unknown): Advertisement {
  const r = obj(res);
  const modes = obj(r.modes);
  const models = obj(r.models);
  const list = (v: unknown, idKey: string): Advertised[] =>
    Array.isArray(v)
      ? v
          .map(obj)
          .filter((o) => str(o[idKey]))
          .map((o) => ({
            id: str(o[idKey])!,
            name: str(o.name) ?? str(o[idKey])!,
            description: str(o.description) ?? undefined,
          }))
      : [];
  const configOptions: ConfigOption[] = Array.isArray(r.configOptions)
    ? r.configOptions
        .map(obj)
        .filter((o) => str(o.id))
        .map((o) => ({
          id: str(o.id)!,
          category: str(o.category),
          type: str(o.type) ?? "select",
          current: o.currentValue,
          // Grouped selects hold their options one level down.
          options: list(
            Array.isArray(o.options)
              ? o.options.flatMap((x) => (Array.isArray(obj(x).options) ? (obj(x).options as unknown[]) : [x]))
              : [],
            "value",
          ),
        }))
    : [];
  return {
    modes: Array.isArray(modes.availableModes)
      ? { current: str(modes.currentModeId), available: list(modes.availableModes, "id") }
      : null,
    models: Array.isArray(models.availableModels)
      ? { current: str(models.currentModelId), available: list(models.availableModels, "modelId") }
      : null,
    configOptions,
  };
}

const byCategory = (ad: Advertisement, cat: string) => ad.configOptions.find((o) => o.category === cat || o.id === cat);

/** The model the agent runs now, as a relay id (null when it does not say). */
export function currentModel(ad: Advertisement, adapter?: ProviderAdapter): string | null {
  const opt = byCategory(ad, "model");
  const id = opt ? (typeof opt.current === "string" ? opt.current : null) : (ad.models?.current ?? null);
  if (!id) return null;
  const offered = opt ? opt.options : (ad.models?.available ?? []);
  const m = offered.find((o) => o.id === id) ?? { id, name: id };
  return adapter?.modelId ? adapter.modelId(m) : m.id;
}

/** The relay model ids the agent offers (mapped by the adapter), in its order. */
export function advertisedModels(ad: Advertisement, adapter?: ProviderAdapter): string[] {
  const opt = byCategory(ad, "model");
  const raw = opt ? opt.options : (ad.models?.available ?? []);
  const ids = raw.map((m) => (adapter?.modelId ? adapter.modelId(m) : m.id)).filter((x): x is string => !!x);
  return [...new Set(ids)];
}

/** The CLI's own mode id for a relay mode, or null when it offers none that fits. */
export function cliModeFor(ad: Advertisement, adapter: ProviderAdapter | undefined, mode: Mode): string | null {
  const offered = byCategory(ad, "mode")?.options ?? ad.modes?.available ?? [];
  for (const want of adapter?.modes?.[mode] ?? []) {
    const hit = offered.find((m) => m.id === want || (want.startsWith("#") && m.id.endsWith(want)));
    if (hit) return hit.id;
  }
  return null;
}

// Relay efforts → the CLI's thought levels: an exact match, else the nearest stronger one.
const EFFORT_ORDER = ["minimal", "low", "medium", "high", "xhigh", "max"];
function effortValue(offered: Advertised[], effort: string): string | null {
  if (offered.some((o) => o.id === effort)) return effort;
  const at = EFFORT_ORDER.indexOf(effort);
  if (at < 0) return null;
  for (const e of [...EFFORT_ORDER.slice(at), ...EFFORT_ORDER.slice(0, at).reverse()])
    if (offered.some((o) => o.id === e)) return e;
  return null;
}

/** The calls that bring the agent from what it runs now (`applied`) to `want`. */
export function configCalls(
  ad: Advertisement,
  adapter: ProviderAdapter | undefined,
  want: Desired,
  applied: Partial<Desired>,
): ConfigCall[] {
  const calls: ConfigCall[] = [];
  if (want.mode !== applied.mode) {
    const id = cliModeFor(ad, adapter, want.mode);
    const opt = byCategory(ad, "mode");
    if (id && opt) calls.push({ method: "session/set_config_option", configId: opt.id, value: id, what: `mode ${id}` });
    else if (id) calls.push({ method: "session/set_mode", modeId: id, what: `mode ${id}` });
  }
  if (want.model !== applied.model) {
    const opt = byCategory(ad, "model");
    const offered = opt ? opt.options : (ad.models?.available ?? []);
    // The agent's own value for the relay id (Claude: "opus" for claude-opus-5-5), else the id itself.
    const listed = offered.find(
      (m) => (adapter?.modelId ? adapter.modelId(m) : m.id) === want.model || m.id === want.model,
    );
    // A model the agent did not list is not forced on it (it would refuse the turn): the turn
    // runs on the agent's current model and the reply says which (modelNote).
    const value = listed?.id ?? (adapter?.acceptsUnlistedModels || !offered.length ? want.model : null);
    if (value !== null && opt)
      calls.push({ method: "session/set_config_option", configId: opt.id, value, what: `model ${want.model}` });
    else if (value !== null && (ad.models || adapter?.setModelUnadvertised))
      calls.push({ method: "session/set_model", modelId: value, what: `model ${want.model}` });
  }
  if (want.effort && want.effort !== applied.effort) {
    const opt = byCategory(ad, "thought_level");
    const value = opt ? effortValue(opt.options, want.effort) : null;
    if (opt && value)
      calls.push({ method: "session/set_config_option", configId: opt.id, value, what: `effort ${value}` });
  }
  return calls;
}
