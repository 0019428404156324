import type { PairingWatch } from "./deps.ts";
import type { PairingStore } from "./store.ts";

// The watched relay's side of the event link (GET /peer/v1/events): the subscriptions that
// pairing's stand-ins hold here, as the calling relay's mirrors ask after them.

export interface StandInSubsDeps {
  store: Pick<PairingStore, "remoteCallerById">;
  watch: Pick<PairingWatch, "get" | "end">;
}

/** The subscription, when a stand-in of that pairing holds it. */
function subOf(d: StandInSubsDeps, pairing: string, id: string) {
  const row = d.watch.get(id);
  return row && d.store.remoteCallerById(row.watcher)?.pairing === pairing ? row : undefined;
}

/** Subscriptions the watcher's owner ended there (Unsubscribe on the mirror) end here too. */
export function endUnsubscribed(d: StandInSubsDeps, pairing: string, ids: string[]): void {
  const mine = ids.filter((id) => {
    const row = subOf(d, pairing, id);
    return row && row.ended_at == null;
  });
  if (mine.length) d.watch.end(mine, "unsubscribed");
}

/** Where each of these subscriptions stands: null while active, else why it ended. */
export function subStates(d: StandInSubsDeps, pairing: string, ids: string[]): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const id of ids.slice(0, 500)) {
    const row = subOf(d, pairing, id);
    out[id] = !row ? "unpaired" : row.ended_at == null ? null : (row.end_reason ?? "unsubscribed");
  }
  return out;
}
