// create_session with `group` when the session was made but did not join that group
// (relay_tool §8.2): the result says so three ways, so an agent that reads only the
// summary still sees it, and `note` asks it to tell the owner, who can move it by hand.
// On this relay the join happens in the same transaction as the start, so this applies when
// a target (e.g. a paired relay) created the session but did not put it in the group.

export interface CreatedGroup {
  id: string;
  name: string;
  role?: string;
}

export function withGroupWarning<T extends Record<string, unknown> & { summary: string }>(
  result: T,
  requested: { id: string; name: string } | null,
  joined: CreatedGroup | null,
  why?: string,
): T & { groupWarning?: string; note?: unknown } {
  if (!requested || joined?.id === requested.id) return result;
  const reason = why ?? (joined ? `it joined "${joined.name}" (${joined.id}) instead` : "it joined no group");
  const warning = `The session was created but did not join session group "${requested.name}" (${requested.id}): ${reason}.`;
  const ask = `Tell the user that the session is not in group "${requested.name}"; they can move it by hand.`;
  const note = [result.note, ask].filter(Boolean).join(" ");
  return { ...result, groupWarning: warning, summary: `${result.summary} (no group: ${reason})`, note };
}
