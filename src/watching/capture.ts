// From what happened in a session to one event row per watcher (seed §9 "Events"). Each
// happening has a key (the turn, the task end, the question) so that the same thing is
// written once per watcher however many of its subscriptions receive it, and again not at
// all when start-up looks for happenings the relay died before capturing.
import type { Delivery } from "./delivery.ts";
import type { WriteBehind } from "./write-behind.ts";
import type { SubscriptionStore } from "./subscriptions.ts";
import { earliest } from "./release.ts";
import { URGENT, type EventType, type Happening, type NewEvent, type Sub } from "./types.ts";
import { lines, sessionRef } from "./event-lines.ts";
import type { TaskRow } from "../sessions/types.ts";
import type { EndedTurn, EventRefs } from "../sessions/event-refs.ts";
import { fromJson } from "../store/db.ts";
import type { QuestionRow } from "../questions/ask-user.ts";

/** Which subscriptions a happening reaches: by event name (task ends also by the broader
 * task_finished), by `match` on its line, and only after the subscription began. */
export function receives(sub: Sub, h: Happening): boolean {
  if (h.onlySub) return h.onlySub === sub.id;
  if (h.recovered && sub.row.created_at > h.at) return false;
  const ev = sub.events;
  const named =
    ev.has(h.type as EventType) ||
    ((h.type === "task_failed" || h.type === "subagent_finished") && ev.has("task_finished"));
  if (!named) return false;
  return !sub.match || h.line.toLowerCase().includes(sub.match.toLowerCase());
}

const RECOVERABLE = new Set<string>([
  "turn_end",
  "error",
  "task_started",
  "task_finished",
  "task_failed",
  "subagent_finished",
  "question_asked",
  "question_answered",
]);

export class Capture {
  /** Turns each watcher waits on itself (send/create_session/wait): their turn_end is held. */
  readonly waits = new Map<string, Set<string>>();

  constructor(
    private refs: EventRefs,
    private subs: SubscriptionStore,
    private delivery: Delivery,
    private wb: WriteBehind,
  ) {}

  /** Writes the happening for every watcher it reaches (write-behind: in the store by the end
   * of this turn of the event loop, or sooner when anything reads); returns the watchers. */
  capture(h: Happening, candidates: Sub[] = h.sessionId ? this.subs.watching(h.sessionId) : []): string[] {
    if (!candidates.length) return [];
    const byWatcher = new Map<string, Sub[]>();
    for (const s of candidates) {
      if (!receives(s, h)) continue;
      if (!byWatcher.has(s.watcher)) byWatcher.set(s.watcher, []);
      byWatcher.get(s.watcher)!.push(s);
    }
    if (!byWatcher.size) return [];
    const urgent = URGENT.has(h.type);
    const touched: string[] = [];
    for (const [watcher, subs] of byWatcher) {
      const once = subs.filter((s) => s.once);
      const keep = once.length > 0;
      const r = earliest(this.subs, subs, h.at, urgent);
      // No echo: the turn_end of a prompt the watcher waits on itself is held until its reply.
      const echo = !urgent && !keep && h.type === "turn_end" && !!h.turnId && !!this.waits.get(watcher)?.has(h.turnId);
      const ready = !echo && (urgent || !r.hold);
      const e: NewEvent = {
        key: h.key,
        type: h.type,
        sessionId: h.sessionId,
        turnId: h.turnId ?? null,
        line: h.line,
        urgent,
        subs: subs.map((s) => s.id),
        at: h.at,
        state: ready ? "ready" : "held",
        hold: urgent ? null : r.hold,
        holdSub: urgent || !r.hold ? null : r.sub.id,
        releaseAt: ready ? null : r.at,
        echo,
        keep,
        seq: this.delivery.nextSeq(),
      };
      this.wb.push(() => this.delivery.add(watcher, e));
      // A one-time subscription ends at once; its event still obeys its digest and quiet hours.
      for (const s of once) this.subs.endLater(s, h.at);
      this.delivery.dueBy(watcher, ready ? (urgent ? h.at : h.at + this.delivery.gatherMs) : echo ? Infinity : r.at);
      touched.push(watcher);
    }
    // Only turns, tasks and questions can be found again at start-up (recovery.ts): the rest
    // must not wait in the batch. Nor do events for watchers on paired relays: the held
    // event-link request is answered the moment their outbox row is written.
    if (!RECOVERABLE.has(h.type) || touched.some((w) => w.startsWith("rmt_"))) this.wb.flush();
    return touched;
  }

  /** How a line names the session; null once it is archived (its subscriptions ended with it). */
  ref(sessionId: string): string | null {
    // Only what the line needs: this runs for every event.
    const s = this.refs.session(sessionId);
    return s && !s.archived_at ? sessionRef(s.title, sessionId) : null;
  }

  /** The ended turn, with only the start of its reply (a reply can be long). */
  endedTurn(turnId: string): EndedTurn | undefined {
    return this.refs.endedTurn(turnId);
  }

  turnEnded(turn: EndedTurn, at: number): Happening | null {
    const ref = this.ref(turn.session_id);
    if (!ref) return null;
    const error = turn.status === "error";
    return {
      key: `turn:${turn.id}`,
      type: error ? "error" : "turn_end",
      sessionId: turn.session_id,
      turnId: turn.id,
      at,
      line: error ? lines.error(ref, turn.error) : lines.turnEnd(ref, turn.status, turn.reply_text),
    };
  }

  taskChanged(task: TaskRow, at: number): Happening | null {
    const ref = this.ref(task.session_id);
    if (!ref) return null;
    if (task.status === "running") {
      return {
        key: `task_start:${task.session_id}:${task.id}`,
        type: "task_started",
        sessionId: task.session_id,
        at,
        line: lines.task(ref, "task_started", task.description, task.type, task.status, null),
      };
    }
    // Failing or exiting non-zero wakes by default; a subagent finishing too; a shell
    // command or monitor that ends normally only for task_finished.
    const failed =
      task.status === "failed" || task.status === "killed" || (task.exit_code != null && task.exit_code !== 0);
    const type: EventType = failed ? "task_failed" : task.type === "subagent" ? "subagent_finished" : "task_finished";
    return {
      key: `task_end:${task.session_id}:${task.id}`,
      type,
      sessionId: task.session_id,
      at,
      line: lines.task(ref, type, task.description, task.type, task.status, task.exit_code),
    };
  }

  questionAsked(q: QuestionRow, at: number): Happening | null {
    const ref = this.ref(q.session_id);
    if (!ref) return null;
    return {
      key: `question:${q.id}`,
      type: "question_asked",
      sessionId: q.session_id,
      at,
      line: lines.questionAsked(ref, q.id, q.question, fromJson<string[]>(q.options_json, [])),
    };
  }

  questionAnswered(q: QuestionRow, at: number): Happening | null {
    const ref = this.ref(q.session_id);
    if (!ref || (q.status !== "answered" && q.status !== "dismissed")) return null;
    return {
      key: `question_answered:${q.id}`,
      type: "question_answered",
      sessionId: q.session_id,
      at,
      line: lines.questionAnswered(ref, q.id, q.status, q.choice ?? q.answer),
    };
  }
}
