import type { Clock, Cancel } from "../core/clock.ts";
import { MINUTE } from "../core/clock.ts";
import type { Bus } from "../core/bus.ts";
import { newId } from "../core/ids.ts";
import { toJson } from "../store/db.ts";
import { sql } from "../store/sql.ts";
import type { SessionStore } from "./session-store.ts";
import type { FromInfo, Mode, Role, SessionRow, TurnRow } from "./types.ts";

export interface TurnRunner {
  /** Runs one prompt to its end; resolves with how it ended. Chunks go to onChunk. */
  run(
    sessionId: string,
    turn: TurnRow,
    text: string,
    onChunk: (t: string) => void,
    signal: AbortSignal,
  ): Promise<{ stopReason: string; meta?: Record<string, unknown> }>;
  /** The agent did not answer a cancel: end its process so the next turn gets a fresh one. */
  abandon?(sessionId: string): void;
  /** Takes back a turn that was running when the relay went down and whose worker ran on
   * (the keeper): resolves as run does once the agent answers the earlier prompt. */
  resume?(
    sessionId: string,
    turn: TurnRow,
    onChunk: (t: string) => void,
    signal: AbortSignal,
  ): Promise<{ stopReason: string; meta?: Record<string, unknown> }>;
  /** The turn's end is in the store: its worker need not keep it for a restart any more. */
  recorded?(sessionId: string, turnId: string): void;
  /** Whether a turn started now has its prompt handed to the agent before anything else can
   * happen (a warm idle worker, nothing to set first): then the start writes `prompted_at`
   * in the same statement and `run` does not write it again. */
  promptsAtOnce?(session: SessionRow, turn: TurnRow): boolean;
}

/** What may keep a queued turn from starting, and hears each turn's end (budgets, contract
 * §10.4, wired by the composition root). */
export interface TurnGate {
  /** Before the session's next queued turn starts: true leaves it queued (held), and the
   * turns behind it wait behind it. Runs inside the start's transaction: memory only. */
  holds(session: SessionRow, turn: TurnRow): boolean;
  /** The turns just held, once the transaction that held them has committed. */
  held(turns: TurnRow[]): void;
  /** A turn's end is committed: its status and the meta its agent reported (usage). */
  ended(turn: {
    id: string;
    sessionId: string;
    status: string;
    model: string | null;
    meta: Record<string, unknown> | undefined;
  }): void;
}

/** How long (real time) an agent has to answer a cancel before its process is ended. */
const CANCEL_GRACE_MS = 3000;

export interface Enqueue {
  sessionId: string;
  text: string;
  role: Role;
  from?: FromInfo | null;
  fromSession?: string | null;
  mode?: Mode | null;
  model?: string | null;
  origin?: unknown;
}

/** What the turn queue uses: the session store (its turns and messages), the clock, the bus;
 * the runner that hands a turn to the session's worker (built first: app/wire-providers.ts)
 * and Max turn duration (a setting). */
export interface TurnsDeps {
  store: Pick<SessionStore, "db" | "get" | "turn" | "message" | "addMessage" | "activeTurns">;
  clock: Clock;
  bus: Bus;
  runner: TurnRunner;
  maxTurnMinutes(): number;
  /** What may hold a queued turn before it starts (budgets, contract §10.4). */
  gate?: TurnGate;
}

interface Live {
  text: string;
  startedAt: number;
  abort: AbortController;
  endReason?: { status: "stopped" | "error"; error?: string };
  cancelTimer?: Cancel;
}

/** The queue of turns per session: one runs at a time, the rest wait in order. Turn rows
 * are the durable truth; `live` holds only what a running turn has streamed so far. */
export class Turns {
  private live = new Map<string, Live>();
  private waiters = new Map<string, Set<() => void>>();
  private readonly runner: TurnRunner;
  private readonly gate?: TurnGate;
  private heldNow: TurnRow[] = [];
  private closing = false;
  private readonly maxTurnMinutes: () => number;
  private store: TurnsDeps["store"];
  private clock: Clock;
  private bus: Bus;

  constructor(d: TurnsDeps) {
    this.store = d.store;
    this.clock = d.clock;
    this.bus = d.bus;
    this.runner = d.runner;
    this.gate = d.gate;
    this.maxTurnMinutes = () => d.maxTurnMinutes();
    d.bus.on((e) => {
      if (
        e.type === "turn.ended" ||
        e.type === "turn.started" ||
        e.type === "card.created" ||
        e.type === "card.decided"
      ) {
        const set = this.waiters.get("turnId" in e ? e.turnId : e.sessionId);
        if (set) for (const fn of [...set]) fn();
      }
    });
  }

  enqueue(e: Enqueue): { turn: TurnRow; messageId: string } {
    const db = this.store.db;
    // One write for the prompt, its turn and (when nothing runs in the session) the turn's
    // start, instead of one each: a send's store work is on its path to done.
    const res = db.transaction(() => {
      const id = newId("trn");
      const msg = this.store.addMessage(e.sessionId, e.role, e.text, { from: e.from ?? null, turnId: id });
      sql(
        db,
        `INSERT INTO turns (id, session_id, message_id, status, mode, model, from_session, origin_json, queued_at)
        VALUES (?, ?, ?, 'queued', ?, ?, ?, ?, ?)`,
      ).run(
        id,
        e.sessionId,
        msg.id,
        e.mode ?? null,
        e.model ?? null,
        e.fromSession ?? null,
        toJson(e.origin),
        this.clock.now(),
      );
      return { turn: this.store.turn(id)!, messageId: msg.id, next: this.startNext(e.sessionId) };
    })();
    this.bus.emit({ type: "message.created", sessionId: e.sessionId, messageId: res.messageId, role: e.role });
    this.bus.emit({ type: "session.updated", sessionId: e.sessionId });
    this.tellHeld();
    if (res.next) this.started(res.next, res.next.id === res.turn.id ? e.text : undefined);
    return { turn: res.turn, messageId: res.messageId };
  }

  inFlight(turnId: string): { text: string; startedAt: number } | null {
    const l = this.live.get(turnId);
    return l ? { text: l.text, startedAt: l.startedAt } : null;
  }

  /** 1 = next to run (contract §8), whether or not a turn runs now. 0 when running or ended. */
  queuePosition(turn: TurnRow): number {
    if (turn.status !== "queued") return 0;
    const queued = this.store.activeTurns(turn.session_id).filter((t) => t.status === "queued");
    return queued.findIndex((t) => t.id === turn.id) + 1;
  }

  kick(sessionId: string): void {
    const next = this.startNext(sessionId);
    this.tellHeld();
    if (next) this.started(next);
  }

  private tellHeld(): void {
    if (this.heldNow.length) this.gate?.held(this.heldNow.splice(0));
  }

  /** The store side of starting the session's next queued turn (none when one runs): marked
   * running, and prompted too when its prompt goes out at once (TurnRunner.promptsAtOnce). */
  private startNext(sessionId: string): TurnRow | null {
    const active = this.store.activeTurns(sessionId);
    if (active.some((t) => t.status === "running")) return null;
    const next = active.find((t) => t.status === "queued");
    const session = next && this.store.get(sessionId);
    if (!next || !session) return null;
    if (this.gate?.holds(session, next)) {
      this.heldNow.push(next);
      return null;
    }
    const now = this.clock.now();
    const prompted = this.runner.promptsAtOnce?.(session, next) ? now : null;
    sql(
      this.store.db,
      "UPDATE turns SET status = 'running', started_at = ?, prompted_at = ? WHERE id = ? AND status = 'queued'",
    ).run(now, prompted, next.id);
    return { ...next, status: "running", started_at: now, prompted_at: prompted };
  }

  /** A turn startNext marked running: told, and run (its prompt goes out in this same task).
   * `text`: its prompt's, when the caller has it at hand. */
  private started(turn: TurnRow, text?: string): void {
    const sessionId = turn.session_id;
    this.bus.emit({ type: "turn.started", sessionId, turnId: turn.id });
    this.bus.emit({ type: "session.updated", sessionId });
    const prompt = text ?? this.store.message(turn.message_id)?.text ?? "";
    this.launch(turn, turn.started_at!, (onChunk, signal) => this.runner.run(sessionId, turn, prompt, onChunk, signal));
  }

  /** Follows a running turn to its end: what it streams, its max duration, how it ends. */
  private launch(
    turn: TurnRow,
    startedAt: number,
    go: (
      onChunk: (t: string) => void,
      signal: AbortSignal,
    ) => Promise<{ stopReason: string; meta?: Record<string, unknown> }>,
  ): void {
    const sessionId = turn.session_id;
    const live: Live = { text: "", startedAt, abort: new AbortController() };
    this.live.set(turn.id, live);
    live.cancelTimer = this.clock.at(startedAt + this.maxTurnMinutes() * MINUTE, () =>
      this.end(
        turn.id,
        "error",
        `The turn ran longer than Max turn duration (${this.maxTurnMinutes()} min) and was ended.`,
      ),
    );
    go((t) => {
      // The chunk and where it starts ride on the event: the page appends it (turn.delta).
      const offset = live.text.length;
      live.text += t;
      this.bus.emit({ type: "turn.progress", sessionId, turnId: turn.id, text: t, offset });
    }, live.abort.signal).then(
      (r) => this.finish(turn.id, r.stopReason === "cancelled" ? "stopped" : "done", undefined, r.meta),
      // A failed turn keeps what the agent did before it failed (providers/workers.ts attaches it).
      (err: unknown) =>
        this.finish(turn.id, "error", errorText(err), (err as { meta?: Record<string, unknown> } | null)?.meta),
    );
  }

  /** Ends the session's queued turns without running them (archive, delete), so nothing
   * starts a worker for it afterwards and waiters on those turns hear at once. */
  dropQueued(sessionId: string, onlyTurn?: string): void {
    const queued = this.store
      .activeTurns(sessionId)
      .filter((t) => t.status === "queued" && (onlyTurn === undefined || t.id === onlyTurn));
    if (!queued.length) return;
    const db = this.store.db;
    const now = this.clock.now();
    db.transaction(() => {
      for (const t of queued)
        db.prepare(
          "UPDATE turns SET status = 'stopped', reply_text = '', ended_at = ? WHERE id = ? AND status = 'queued'",
        ).run(now, t.id);
    })();
    for (const t of queued) this.bus.emit({ type: "turn.ended", sessionId, turnId: t.id, status: "stopped" });
    this.bus.emit({ type: "session.updated", sessionId });
  }

  /** Stops the running turn of a session. Returns whether one was running. */
  stop(sessionId: string): boolean {
    const running = this.store.activeTurns(sessionId).find((t) => t.status === "running");
    if (!running) return false;
    this.end(running.id, "stopped");
    return true;
  }

  /** Ends a running turn from the relay's side (stop, max duration, killed worker). */
  end(turnId: string, status: "stopped" | "error", error?: string): void {
    const live = this.live.get(turnId);
    if (!live) return;
    if (live.endReason) return; // already ending
    live.endReason = { status, error };
    live.abort.abort();
    // A cancelled prompt normally answers at once. An agent that does not is still working
    // on it: its process is ended (so it cannot write into the next turn) and the turn
    // finishes anyway. Real time on purpose: this waits on a process, not on the relay's
    // schedule, so the manual test clock must not hold it.
    const sessionId = this.store.turn(turnId)?.session_id;
    setTimeout(() => {
      if (!this.live.has(turnId)) return;
      if (sessionId) this.runner.abandon?.(sessionId);
      this.finish(turnId, live.endReason!.status, live.endReason!.error);
    }, CANCEL_GRACE_MS).unref();
  }

  private finish(
    turnId: string,
    status: "done" | "stopped" | "error",
    error?: string,
    extraMeta?: Record<string, unknown>,
  ): void {
    // The relay is closing and its workers stay (graceful stop): the turn is still running
    // for the next start to take back, not ended by the closing connection.
    if (this.closing) return;
    const live = this.live.get(turnId);
    if (!live) return;
    this.live.delete(turnId);
    live.cancelTimer?.();
    if (live.endReason) {
      status = live.endReason.status;
      error = live.endReason.error ?? error;
    }
    const db = this.store.db;
    const countFirst = !!this.gate && extraMeta?.usage !== undefined;
    // One transaction: the turn's end, and the start of the session's next queued turn.
    const ended = db.transaction(() => {
      const turn = this.store.turn(turnId);
      if (!turn || (turn.status !== "running" && turn.status !== "queued")) return null;
      const session = this.store.get(turn.session_id);
      const model = turn.model ?? session?.model ?? null;
      let replyId: string | null = null;
      // A turn without text is kept for what it did or cost (its usage counts toward spend).
      if (live.text || status === "error" || extraMeta?.activity || extraMeta?.usage) {
        // A turn that failed after some text keeps it and says why below it (a CLI may print
        // its own terse line, e.g. "Invalid API key", before failing).
        const text =
          status === "error" ? (live.text ? `${live.text}\n\nError: ${error}` : `Error: ${error}`) : live.text;
        replyId = this.store.addMessage(turn.session_id, "agent", text, {
          turnId,
          meta: { model, status, error: error ?? null, ...(extraMeta ?? {}) },
        }).id;
      }
      sql(
        db,
        "UPDATE turns SET status = ?, reply_text = ?, reply_message_id = ?, error = ?, model = ?, ended_at = ? WHERE id = ?",
      ).run(
        status,
        live.text,
        replyId,
        status === "error" ? (error ?? "The turn failed.") : null,
        model,
        this.clock.now(),
        turnId,
      );
      // A turn that reported usage is counted (gate.ended) before the next one is looked at:
      // that one starts only after, against the spend it takes the session's budgets to.
      return {
        sessionId: turn.session_id,
        model,
        prompt: this.store.message(turn.message_id),
        next: countFirst ? null : this.startNext(turn.session_id),
      };
    })();
    if (!ended) return;
    const { sessionId, prompt, next, model } = ended;
    this.runner.recorded?.(sessionId, turnId);
    this.tellHeld();
    this.gate?.ended({ id: turnId, sessionId, status, model, meta: extraMeta });
    // Who started the turn: the page notifies the owner of their own turns, not of an agent's
    // (a prompt from an agent carries `from`; one from another relay has role "remote").
    const byOwner = prompt?.role === "user" && !prompt.from_json;
    this.bus.emit({ type: "turn.ended", sessionId, turnId, status, role: prompt?.role, byOwner });
    this.bus.emit({ type: "session.updated", sessionId });
    if (next) this.started(next);
    else if (countFirst) this.kick(sessionId);
  }

  /** Resolves when the turn changes (starts, ends, a card) or the deadline passes. */
  async waitChange(keys: string[], deadline: number, signal?: AbortSignal): Promise<void> {
    if (this.clock.now() >= deadline) return;
    await new Promise<void>((resolve) => {
      const ac = new AbortController();
      const done = () => {
        for (const k of keys) this.waiters.get(k)?.delete(done);
        ac.abort();
        signal?.removeEventListener("abort", done);
        resolve();
      };
      for (const k of keys) {
        if (!this.waiters.has(k)) this.waiters.set(k, new Set());
        this.waiters.get(k)!.add(done);
      }
      signal?.addEventListener("abort", done, { once: true });
      this.clock.until(deadline, ac.signal).then(done);
    });
    for (const k of keys) if (this.waiters.get(k)?.size === 0) this.waiters.delete(k);
  }

  /** After a restart: a turn whose worker ran on (`resumable`: turn id → session, see
   * Workers.attachAll) is taken back and finishes as usual; any other turn that was running
   * when the relay died ended with it. Returns the sessions with queued turns to start. */
  recover(resumable: Map<string, string> = new Map()): string[] {
    const db = this.store.db;
    const running = db.prepare("SELECT * FROM turns WHERE status = 'running'").all() as TurnRow[];
    const lost = running.filter((t) => !(resumable.has(t.id) && this.runner.resume));
    // A prompt no agent ever saw (its worker was starting, or the turn waited for room under
    // maxWorkers) is simply run again, in its place in the queue: nothing of it happened yet.
    const unsent = lost.filter((t) => t.prompted_at == null);
    const died = lost.filter((t) => t.prompted_at != null);
    const now = this.clock.now();
    db.transaction(() => {
      for (const t of unsent)
        db.prepare("UPDATE turns SET status = 'queued', started_at = NULL WHERE id = ? AND status = 'running'").run(
          t.id,
        );
      for (const t of died) {
        const error =
          "The relay stopped while this turn was running; the turn did not finish. Send the prompt again if it is still needed.";
        const reply = this.store.addMessage(t.session_id, "agent", `Error: ${error}`, {
          turnId: t.id,
          meta: { status: "error", error },
        });
        db.prepare(
          "UPDATE turns SET status = 'error', error = ?, reply_text = '', reply_message_id = ?, ended_at = ? WHERE id = ?",
        ).run(error, reply.id, now, t.id);
      }
    })();
    for (const t of running) {
      if (lost.includes(t)) continue;
      this.launch(t, t.started_at ?? now, (onChunk, signal) => this.runner.resume!(t.session_id, t, onChunk, signal));
    }
    const queued = db.prepare("SELECT DISTINCT session_id FROM turns WHERE status = 'queued'").all() as {
      session_id: string;
    }[];
    return queued.map((r) => r.session_id);
  }

  /** The relay closes while its workers stay (graceful stop): running turns stay running. */
  shutdown(): void {
    this.closing = true;
    for (const l of this.live.values()) l.cancelTimer?.();
  }
}

function errorText(err: unknown): string {
  if (err && typeof err === "object" && "message" in err) return String((err as { message: unknown }).message);
  return String(err);
}
