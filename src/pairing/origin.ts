import { fromJson } from "../store/db.ts";

// Where a prompt came from (contract §5.5): the relays its chain has been on before the one
// it is on now (the originating relay first), and the relays the owner unlocked in the
// originating conversation (by name, that relay's own name, and host). Kept on every turn
// (turns.origin_json) and on schedules, so a chain never loses a hop.
export interface Origin {
  relays: string[];
  ownerUnlocked: string[];
}

/** "2 relays crossed" (contract §6). */
export const MAX_HOPS = 2;

export function parseOrigin(json: string | null | undefined): Origin | null {
  const o = fromJson<Partial<Origin> | null>(json ?? null, null);
  if (!o || typeof o !== "object") return null;
  return {
    relays: Array.isArray(o.relays) ? o.relays.filter((r): r is string => typeof r === "string").slice(0, 20) : [],
    ownerUnlocked: Array.isArray(o.ownerUnlocked)
      ? o.ownerUnlocked.filter((r): r is string => typeof r === "string").slice(0, 200)
      : [],
  };
}

/** Checks an origin that arrived from another relay. */
export function cleanOrigin(o: unknown): Origin {
  return parseOrigin(JSON.stringify(o ?? null)) ?? { relays: [], ownerUnlocked: [] };
}
