import type { z } from "zod";
import { RelayError } from "../core/errors.ts";
import type { SettingsStore } from "../core/settings.ts";
import type { SessionStore } from "../sessions/session-store.ts";
import type { SessionRow } from "../sessions/types.ts";
import { getProvider, modelsOf, ProviderId, providerAvailability } from "../providers/catalog.ts";
import { suggestModels } from "../providers/model-check.ts";
import { versionLess } from "../core/versions.ts";
import { CAP_CODE, capReason, capState } from "./cap.ts";

// Switching a Claude session's billing on `send` (relay_tool §8.2, since 0.9.18): between the
// subscription (`claude`) and the Claude API key (`claude-api`), in the same call that sends.
// Everything here only checks: send writes the switch together with the message, after any
// card, so a refused switch sends nothing and a refused message switches nothing.

export const SWITCH_SINCE = "0.9.18";
/** The two ways a Claude session bills, named by their provider ids. */
export const Billing = ProviderId.extract(["claude", "claude-api"]);
export type Billing = z.output<typeof Billing>;
const NOTHING = "Nothing was sent.";

export const CARD_TEXT: Record<Billing, string> = {
  "claude-api": "Switches billing to API key",
  claude: "Switches billing to subscription",
};
const SIDE: Record<Billing, string> = { "claude-api": "the Claude API key", claude: "the Claude subscription" };
const NOT_SET_UP: Record<Billing, string> = { "claude-api": "CLAUDE_API_NOT_SET_UP", claude: "CLAUDE_NOT_SET_UP" };

export interface BillingSwitch {
  to: Billing;
  /** The card line, shown where a card applies. */
  card: string;
}

/** What a billing switch checks: which relay this is, its settings (keys, the cap) and
 * whether the session has a turn. */
export interface BillingDeps {
  identity: { readonly name: string; readonly version: string };
  settings: Pick<SettingsStore, "get">;
  sessions: Pick<SessionStore, "activeTurns">;
}

const settingsOf = (d: Pick<BillingDeps, "settings">) => d.settings.get() as unknown as Record<string, unknown>;

/** Checks a send's `provider`. Returns null when the session already bills that way. */
export function planBillingSwitch(
  d: BillingDeps,
  s: SessionRow,
  to: Billing,
  askedModel: string | undefined,
): BillingSwitch | null {
  if (versionLess(d.identity.version, SWITCH_SINCE)) {
    throw new RelayError(
      "REMOTE_RELAY_UNSUPPORTED",
      `Relay "${d.identity.name}" runs OAR ${d.identity.version}, which cannot switch a session's billing (needs ${SWITCH_SINCE}). ${NOTHING}`,
    );
  }
  if (s.provider !== "claude" && s.provider !== "claude-api") {
    throw new RelayError(
      "REMOTE_RELAY_PROVIDER_UNAVAILABLE",
      `Session "${s.title}" runs on ${getProvider(s.provider)?.name ?? s.provider}; only Claude sessions switch billing between subscription ("claude") and API key ("claude-api"). ${NOTHING}`,
      { remoteCode: "CLAUDE_PROVIDER_REQUIRED" },
    );
  }
  if (s.provider === to) return null;
  const avail = providerAvailability(to, { settings: settingsOf(d) });
  if (!avail.available) {
    throw new RelayError(
      "REMOTE_RELAY_PROVIDER_UNAVAILABLE",
      `Relay "${d.identity.name}" cannot switch session "${s.title}" to ${SIDE[to]}: ${avail.reason}. ${NOTHING}`,
      {
        remoteCode: avail.code ?? NOT_SET_UP[to],
      },
    );
  }
  // A model named in the same send is checked against the other side's list by send itself.
  const list = modelsOf(getProvider(to)!);
  if (askedModel === undefined && list && !list.includes(s.model)) {
    throw new RelayError(
      "REMOTE_RELAY_UNKNOWN_MODEL",
      `Session "${s.title}" runs on '${s.model}', which ${getProvider(to)!.name} on relay "${d.identity.name}" does not offer: pass model with one of ${list.join(", ")}. ${NOTHING}`,
      { remoteCode: "MODEL_NOT_OFFERED", suggestions: suggestModels(s.model, list), models: [...list] },
    );
  }
  // The running CLI bills the old way; it is replaced before the message runs, which a turn
  // in progress would not survive.
  if (d.sessions.activeTurns(s.id).length) {
    throw new RelayError(
      "REMOTE_RELAY_BUSY",
      `Session "${s.title}" has a turn queued or running; its billing can switch once it is idle (or send without provider). ${NOTHING}`,
    );
  }
  return { to, card: CARD_TEXT[to] };
}

/** A send that keeps the billing: a session on the key at its cap takes no message. */
export function checkCap(d: Pick<BillingDeps, "settings">, s: SessionRow): void {
  if (s.provider !== "claude-api") return;
  const cap = capState(settingsOf(d));
  if (!cap.reached) return;
  throw new RelayError(
    "REMOTE_RELAY_PROVIDER_UNAVAILABLE",
    `Session "${s.title}" bills ${SIDE["claude-api"]}, and ${capReason(cap)}. Send with provider: "claude" to switch it to the subscription, or ask the user to raise the cap. ${NOTHING}`,
    { remoteCode: CAP_CODE },
  );
}
