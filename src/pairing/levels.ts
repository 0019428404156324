// Agents-may levels (contract §5.2): what this relay's agents may do on a paired relay.
export const AGENTS_MAY = ["off", "read", "prompt", "full"] as const;
export type AgentsMay = (typeof AGENTS_MAY)[number];

/** The level a relay_tool action needs (the registry's `level`); `none` = needs no level (list_relays). */
export type Level = "none" | "read" | "prompt" | "full";

export const LEVEL_LABEL: Record<AgentsMay, string> = {
  off: "Off",
  read: "Read",
  prompt: "Read and prompt",
  full: "Full",
};

const RANK: Record<AgentsMay | Level, number> = { none: -1, off: 0, read: 1, prompt: 2, full: 3 };

/** The level an action needs on a paired relay; `ask` with `session` is a prompt (contract §5.2). */
export function levelNeeded(action: { name: string; level: Level }, args: Record<string, unknown>): Level {
  if (action.name === "ask" && args.session === undefined) return "prompt";
  return action.level;
}

export function allows(level: AgentsMay, needed: Level): boolean {
  return RANK[level] >= RANK[needed];
}
