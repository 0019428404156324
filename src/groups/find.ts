import { RelayError } from "../core/errors.ts";
import type { Relay } from "../relay.ts";
import { groupName, groupRow } from "./groups.ts";
import { listGroups } from "./list.ts";

const MAX_IN_ERROR = 20;

/** Looks a group up by id or case-insensitive name, as create_session's `group` names it. */
export function findGroup(relay: Relay, ref: string): { id: string; name: string } {
  const byId = groupRow(relay, ref);
  if (byId) return { id: byId.id, name: groupName(relay, byId) };
  const all = listGroups(relay, Number.MAX_SAFE_INTEGER).groups;
  const named = all.filter((g) => g.name.toLowerCase() === ref.trim().toLowerCase());
  if (named.length === 1) return named[0];
  const shown = (named.length ? named : all).slice(0, MAX_IN_ERROR);
  const list = shown.map((g) => `${g.name} (${g.id})`).join(", ");
  const extra = { groups: shown, ...(named.length === 0 && all.length > MAX_IN_ERROR ? { groupsTotal: all.length } : {}) };
  if (named.length > 1) {
    throw new RelayError("REMOTE_RELAY_UNKNOWN_GROUP", `Relay "${relay.name}" has ${named.length} session groups named "${ref}": ${list}. Pass the id. No session was created.`, extra);
  }
  throw new RelayError("REMOTE_RELAY_UNKNOWN_GROUP", `Relay "${relay.name}" has no session group "${ref}". Groups there: ${list || "none"}. No session was created.`, extra);
}
