import { fromJson } from "../store/db.ts";
import type { SessionStore } from "../sessions/session-store.ts";
import type { ReportedUsage } from "./budgets.ts";

// What a finished turn's agent reported (its reply's meta `usage`): a paired relay that ran
// the turn for another relay's agent sends it back in the peer answer (`answer.usage` beside
// `answer.turn`), and the calling relay counts it for the caller's group (contract §10.4).

const ENDED = new Set(["done", "error", "stopped"]);

export function endedTurnUsage(
  sessions: Pick<SessionStore, "turn" | "message">,
  turnId: string,
): ReportedUsage | undefined {
  const t = sessions.turn(turnId);
  if (!t || !ENDED.has(t.status) || !t.reply_message_id) return undefined;
  const meta = fromJson<{ usage?: unknown }>(sessions.message(t.reply_message_id)?.meta_json ?? null, {});
  const u = meta.usage;
  return u && typeof u === "object" && !Array.isArray(u) ? (u as ReportedUsage) : undefined;
}
