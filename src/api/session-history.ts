import type { ApiDeps } from "./deps.ts";
import { iso } from "../core/clock.ts";
import { questionView } from "../questions/ask-user.ts";
import { scheduleView } from "../schedules/view.ts";
import { messageView } from "../sessions/views.ts";
import type { MessageRow } from "../sessions/types.ts";
import { fromJson } from "../store/db.ts";

// What the owner's page shows with a conversation beyond its messages: outcomes that left
// no message of their own (an answered question, a turn stopped before it wrote anything),
// and the title bar's subscription labels and ⏰ list.

const HISTORY_LIMIT = 200;

export function sessionHistory(
  d: Pick<ApiDeps, "sessionReads" | "clock" | "questions" | "watching" | "schedules" | "sessions">,
  sessionId: string,
) {
  const questionHistory = d.questions.history(sessionId, HISTORY_LIMIT).map(questionView);
  const stoppedTurns = d.sessionReads.stoppedTurns(sessionId, HISTORY_LIMIT).map((t) => ({
    turnId: t.id,
    messageId: t.message_id,
    status: t.status,
    ...(t.error ? { error: t.error } : {}),
    endedAt: iso(t.ended_at),
  }));
  const now = d.clock.now();
  const subscriptions = d.watching
    .listFor(sessionId, now)
    .filter((r) => r.ended_at == null)
    .map((r) => d.watching.view(r));
  const schedules = d.schedules.store
    .listFor(sessionId, now)
    .filter((r) => r.ended_at == null)
    .map((r) => scheduleView(d, r));
  return { questionHistory, stoppedTurns, subscriptions, schedules };
}

/** A message as the owner's page reads it: relay_tool's view plus the reply's outcome when
 * not plainly done and its `meta` as stored (SHAPES.md: activity, usage, images). */
export function ownerMessageView(m: MessageRow) {
  const meta = fromJson<Record<string, unknown> | null>(m.meta_json, null);
  return {
    ...messageView(m),
    ...(meta?.status && meta.status !== "done" ? { status: meta.status } : {}),
    ...(meta ? { meta } : {}),
  };
}
