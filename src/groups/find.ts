import { RelayError } from "../core/errors.ts";
import { groupName, groupRow, looksLikeGroupId, type GroupRef } from "./groups.ts";
import { allGroups, type GroupListing, type ListDeps } from "./list.ts";
import { versionLess } from "../core/versions.ts";

/** create_session `group`, update_session and relay_info `groups` came with 0.9.16. */
export const GROUPS_SINCE = "0.9.16";

export const MAX_IN_ERROR = 20;

const CREATE_TAIL = "No session was created.";

/** UNKNOWN_GROUP with the groups there: at most 20 in `groups`, `groupsTotal` when more. */
export function unknownGroup(message: string, shown: GroupListing[], tail: string): RelayError {
  const listed = shown.slice(0, MAX_IN_ERROR);
  const more = shown.length - listed.length;
  const list = listed.map((g) => `${g.name} (${g.id})`).join(", ") || "none";
  const extra = {
    groups: listed.map(({ id, name }) => ({ id, name })),
    ...(more > 0 ? { groupsTotal: shown.length } : {}),
  };
  return new RelayError(
    "REMOTE_RELAY_UNKNOWN_GROUP",
    `${message} Groups there: ${list}${more > 0 ? `, and ${more} more` : ""}. ${tail}`,
    extra,
  );
}

/** Groups whose name is `ref`, case-insensitively (the name relay_info lists). */
export function groupsNamed(d: Pick<ListDeps, "db" | "sessions">, ref: string): GroupListing[] {
  const wanted = ref.trim().toLowerCase();
  return allGroups(d).filter((g) => g.name.toLowerCase() === wanted);
}

function ambiguous(d: ListDeps, ref: string, named: GroupListing[], tail: string): RelayError {
  const list = named.map((g) => `${g.name} (${g.id})`).join(", ");
  return new RelayError(
    "REMOTE_RELAY_UNKNOWN_GROUP",
    `Relay "${d.name}" has ${named.length} session groups named "${ref}": ${list}. Pass the id. ${tail}`,
    {
      groups: named.slice(0, MAX_IN_ERROR).map(({ id, name }) => ({ id, name })),
      ...(named.length > MAX_IN_ERROR ? { groupsTotal: named.length } : {}),
    },
  );
}

/** An existing group by id or case-insensitive name, as create_session's `group` names it. */
export function findGroup(d: ListDeps, ref: string, tail = CREATE_TAIL): GroupRef {
  const byId = groupRow(d, ref.trim());
  if (byId) return { id: byId.id, name: groupName(d, byId) };
  const named = groupsNamed(d, ref);
  if (named.length === 1) return { id: named[0].id, name: named[0].name };
  if (named.length > 1) throw ambiguous(d, ref, named, tail);
  throw unknownGroup(`Relay "${d.name}" has no session group "${ref}".`, allGroups(d), tail);
}

/** update_session's `group`: an existing group, or a name that will create one. A group id
 * must exist; a name matching several groups needs the id. */
export function resolveGroupForUpdate(d: ListDeps, ref: string, tail: string): GroupRef | { create: string } {
  const byId = groupRow(d, ref.trim());
  if (byId) return { id: byId.id, name: groupName(d, byId) };
  if (looksLikeGroupId(ref))
    throw unknownGroup(`Relay "${d.name}" has no session group with id "${ref.trim()}".`, allGroups(d), tail);
  const named = groupsNamed(d, ref);
  if (named.length === 1) return { id: named[0].id, name: named[0].name };
  if (named.length > 1) throw ambiguous(d, ref, named, tail);
  return { create: ref.trim() };
}

/** Just before the session is made: the group found before the card may have been
 * dissolved while the card waited. Same code, nothing created. */
export function recheckGroup(d: ListDeps, group: GroupRef, tail = CREATE_TAIL): void {
  if (groupRow(d, group.id)) return;
  throw unknownGroup(
    `Session group "${group.name}" (${group.id}) on relay "${d.name}" was dissolved before the session could start.`,
    allGroups(d),
    tail,
  );
}

/** create_session's `group` (since 0.9.16): an older relay cannot take it. */
export function findGroupForCreate(d: ListDeps, ref: string): GroupRef {
  if (versionLess(d.version, GROUPS_SINCE)) {
    throw new RelayError(
      "REMOTE_RELAY_UNSUPPORTED",
      `The target relay doesn't support groups on create_session yet: relay "${d.name}" runs OAR ${d.version}, groups need ${GROUPS_SINCE}. Leave out group, or ask the user to update that relay. ${CREATE_TAIL}`,
    );
  }
  return findGroup(d, ref);
}
