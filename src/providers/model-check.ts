import { distance } from "fastest-levenshtein";
import { RelayError } from "../core/errors.ts";
import {
  CATALOG,
  PROVIDER_IDS,
  defaultModelOf,
  getProvider,
  modelsOf,
  providerList,
  type ModelCatalogs,
  type ProviderId,
} from "./catalog.ts";

// relay_tool §8.2 "Which models are accepted": a model is checked against the list New Chat
// offers before any approval card, so a refused id creates, sends and changes nothing. Before
// 0.9.13 an unknown id silently ran on another model and later sends could not reach it.

export type ModelAction = "send" | "create_session" | "update_session";

export interface ModelCheckOptions {
  relayName: string;
  action: ModelAction;
  catalogs?: ModelCatalogs;
}

export interface ModelCheck {
  model: string;
  modelNote?: string;
}

const NOTHING: Record<ModelAction, string> = {
  send: "Nothing was sent.",
  create_session: "Nothing was created.",
  update_session: "Nothing was changed.",
};

// Dots and hyphens are the same id in the two naming schemes (Copilot vs Anthropic), and
// case is never meaningful, so neither should count as a typo.
const normalise = (id: string) =>
  id
    .trim()
    .toLowerCase()
    .replace(/[._\s]/g, "-");

/** Near matches from `list`, best first, at most 3 (edit distance ≤ 0.4 of the longer id). */
export function suggestModels(model: string, list: readonly string[]): string[] {
  const wanted = normalise(model);
  return list
    .map((id, order) => ({ id, order, d: distance(wanted, normalise(id)), len: Math.max(wanted.length, id.length) }))
    .filter((c) => c.len > 0 && c.d / c.len <= 0.4)
    .sort((a, b) => a.d - b.d || a.order - b.order)
    .slice(0, 3)
    .map((c) => c.id);
}

const quoteList = (ids: string[]) =>
  ids.length > 1
    ? `${ids
        .slice(0, -1)
        .map((s) => `'${s}'`)
        .join(", ")} or '${ids.at(-1)}'`
    : `'${ids[0]}'`;

/** Resolves the model a call asks for, or throws the refusal the spec names. */
export function checkModel(providerId: string, model: string | null | undefined, opts: ModelCheckOptions): ModelCheck {
  const end = NOTHING[opts.action];
  const provider = getProvider(providerId);
  if (!provider) {
    throw new RelayError(
      "REMOTE_RELAY_INVALID_INPUT",
      `Unknown provider '${providerId}'. Providers: ${providerList()
        .map((p) => p.id)
        .join(", ")}. ${end}`,
    );
  }
  const asked = (model ?? "").trim();
  if (asked === "") return { model: defaultModelOf(provider, opts.catalogs) };

  const list = modelsOf(provider, opts.catalogs);
  if (list === null) {
    return {
      model: asked,
      modelNote: `Relay "${opts.relayName}" has no model list for ${provider.name} yet (its model discovery did not run or failed), so '${asked}' was not checked.`,
    };
  }
  if (list.includes(asked)) return { model: asked };

  const suggestions = suggestModels(asked, list);
  const extra = { suggestions, models: [...list] };
  if (provider.id === "copilot") refuseForeignCopilotId(asked, suggestions, extra, opts);
  const didYouMean = suggestions.length ? `; did you mean ${quoteList(suggestions)}?` : ".";
  throw new RelayError(
    "REMOTE_RELAY_UNKNOWN_MODEL",
    `Unknown model '${asked}' for ${provider.name} on relay "${opts.relayName}"${didYouMean} Valid ids: ${list.join(", ")}. ${end}`,
    extra,
  );
}

// The Claude family shares one code for "this id belongs to Claude"; other providers have no
// code of their own, so their ids get Copilot's refusal.
const CLAUDE_FAMILY: readonly ProviderId[] = ["claude", "claude-api", "claude-cloud"];

/**
 * Copilot names Claude models with dots, so a hyphenated Claude id or another provider's id is
 * a naming mistake, not a typo. A Copilot session never changes provider over a model name: only
 * create_session, where no session exists yet, points at the provider that lists the id.
 */
function refuseForeignCopilotId(
  asked: string,
  suggestions: string[],
  extra: Record<string, unknown>,
  opts: ModelCheckOptions,
): void {
  const owners = PROVIDER_IDS.filter((id) => id !== "copilot" && modelsOf(CATALOG[id], opts.catalogs)?.includes(asked));
  const claudeForm = /^claude-/i.test(asked) && !asked.includes(".");
  if (owners.length === 0 && !claudeForm) return;
  const end = NOTHING[opts.action];

  const claudeOwners = owners.filter((id) => CLAUDE_FAMILY.includes(id));
  if (opts.action === "create_session" && claudeOwners.length > 0) {
    // Sessions with a folder are what the caller wanted; Claude Cloud is named only when it alone lists the id.
    const local = claudeOwners.filter((id) => id !== "claude-cloud");
    const offer = local.length ? local : claudeOwners;
    const alternatives =
      offer.length > 1
        ? ` (or ${offer
            .slice(1)
            .map((id) => `"${id}"`)
            .join(" or ")})`
        : "";
    throw new RelayError(
      "CLAUDE_PROVIDER_REQUIRED",
      `Model '${asked}' is a Claude model; start the session with provider "${offer[0]}"${alternatives}. ${end}`,
      { ...extra, providers: offer },
    );
  }

  const nearest = suggestions[0];
  const message = nearest
    ? `Copilot has no model '${asked}'; the nearest Copilot model is '${nearest}'${normalise(nearest) === normalise(asked) ? " (Copilot ids use dots)" : ""}. ${end}`
    : `Copilot has no model '${asked}'; it is a ${owners.length ? CATALOG[owners[0]].name : "Claude"} model id. Valid ids: ${(extra.models as string[]).join(", ")}. ${end}`;
  throw new RelayError("COPILOT_MODEL_UNAVAILABLE", message, extra);
}

/** A send's or create_session's `modelNote`: the model passed unchecked (no list yet), or the
 * turn ran on another model than the one asked for (as the reply reports it). */
export function modelNotes(asked: ModelCheck | null, result: Record<string, unknown>): { modelNote?: string } {
  const notes: string[] = [];
  if (asked?.modelNote) notes.push(asked.modelNote);
  const ran = (result.reply as { model?: unknown } | undefined)?.model;
  if (asked && typeof ran === "string" && ran !== "" && ran !== asked.model) {
    notes.push(`The session runs on '${ran}', not on '${asked.model}' as asked.`);
  }
  return notes.length ? { modelNote: notes.join(" ") } : {};
}
