import { RelayError } from "../core/errors.ts";
import type { GroupRef } from "../groups/groups.ts";
import {
  checkProvider,
  LIST_LIMIT_DEFAULT,
  OWNER_LIMIT_MAX,
  SESSION_STATES,
  type ListQuery,
} from "../sessions/list-query.ts";
import type { SessionState } from "../sessions/types.ts";

export const OWNER_LIST_TAIL = "Nothing was listed.";

const bad = (text: string) => new RelayError("REMOTE_RELAY_INVALID_INPUT", `${text} ${OWNER_LIST_TAIL}`);

/** `GET /api/sessions` query parameters (contract §9.1): list_sessions' arguments, with a
 * larger page for the owner's own screen. Empty parameters count as left out. */
export function ownerListQuery(
  groups: { find(ref: string, tail?: string): GroupRef },
  param: (name: string) => string | undefined,
): ListQuery {
  const get = (k: string) => {
    const v = param(k);
    return v === undefined || v === "" ? undefined : v;
  };
  const scope = get("scope") ?? "active";
  if (scope !== "active" && scope !== "all") throw bad('scope must be "active" or "all".');
  const rawLimit = get("limit");
  const limit = rawLimit === undefined ? LIST_LIMIT_DEFAULT : Number(rawLimit);
  if (!/^\d+$/.test(rawLimit ?? "50") || !Number.isInteger(limit) || limit < 1 || limit > OWNER_LIMIT_MAX)
    throw bad(
      `limit must be a whole number from 1 to ${OWNER_LIMIT_MAX} (got ${JSON.stringify(rawLimit).slice(0, 40)}).`,
    );
  const state = get("state");
  if (state !== undefined && !(SESSION_STATES as readonly string[]).includes(state))
    throw bad(`state must be "running_turn", "background_only" or "idle" (got ${JSON.stringify(state).slice(0, 40)}).`);
  const query = get("query");
  if (query !== undefined && query.length > 200) throw bad("query is at most 200 characters.");
  const cursor = get("cursor");
  if (cursor !== undefined && cursor.length > 200) throw bad("cursor is not a nextCursor this relay gave.");
  const provider = get("provider");
  const group = get("group");
  return {
    all: scope === "all",
    limit,
    cursor,
    query,
    provider: provider ? checkProvider(provider, OWNER_LIST_TAIL) : undefined,
    state: state as SessionState | undefined,
    groupId: group ? groups.find(group, OWNER_LIST_TAIL).id : undefined,
  };
}
