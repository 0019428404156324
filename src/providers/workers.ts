import type { Clock, Cancel } from "../core/clock.ts";
import { MINUTE } from "../core/clock.ts";
import type { Mode, SessionRow, TurnRow } from "../sessions/types.ts";
import {
  AcpWorker,
  readWorkerState,
  type McpEntry,
  type PermissionOutcome,
  type PermissionRequest,
  type WorkerHost,
} from "./acp-worker.ts";
import { ActivityLog, type Usage } from "./activity.ts";
import { agentStartRecord, earlierConversation, withStartNote } from "./agent-start.ts";
import { adapterFor } from "./adapters/index.ts";
import { fakeProviders, getProvider } from "./catalog.ts";
import { launchSpec, signInFor } from "./launch.ts";
import { openAiAgentMeta } from "./openai-agent/provider.ts";
import { advertisedModels } from "./session-config.ts";
import { describeFailure, TurnFailure } from "./turn-errors.ts";
import { addUsage, usageOfPromptResult, usageOfUpdate } from "./reported-usage.ts";
import { DirectPipes, type KeptWorker, type WorkerPipes } from "./worker-pipes.ts";

export interface WorkerEnv {
  clock: Clock;
  relayName: string;
  /** The owner's settings, secrets included (a worker's launch takes its own provider's). */
  settings(): Record<string, unknown>;
  session(id: string): SessionRow | undefined;
  /** The MCP entry when relay_tool is offered to this session's agent, else null. */
  mcpEntry(session: SessionRow): McpEntry | null;
  hostFor(
    sessionId: string,
    current: () => ((t: string) => void) | null,
  ): Omit<WorkerHost, "onChunk" | "onExit" | "onUpdate" | "permission">;
  /** The agent asks before a tool: the relay's mode decides (approvals/permission-cards.ts). */
  permission(
    p: { sessionId: string; turnId: string; mode: Mode; provider: string },
    req: PermissionRequest,
    signal: AbortSignal,
  ): Promise<PermissionOutcome>;
  /** Whether the session still needs its process (a turn queued or running, a task running). */
  busy(sessionId: string): boolean;
  /** The worker's process ended. `expected`: the relay stopped or killed it (idle, Kill
   * session, archive); otherwise it died on its own. */
  onWorkerExit(sessionId: string, expected: boolean): void;
  /** A worker's agent has its conversation: the record (agent-start.ts) to keep in the session's row. */
  onAgentStart?(sessionId: string, record: string): void;
  /** The agent reported its models at session/new. */
  onModels?(provider: string, models: string[]): void;
  /** A turn failed because the provider is not signed in: its availability is checked again. */
  onAuthFailure?(provider: string): void;
  /** What a finished turn used, as the agent reported it. */
  onUsage?(provider: string, sessionId: string, usage: Usage): void;
  idleMinutes: number;
  /** The turn's prompt is about to go to its agent (recorded for recovery after a crash). */
  onPrompt?(turnId: string): void;
  /** Agent processes at most (setting maxWorkers, contract §9.3). */
  maxWorkers?(): number;
  /** Who holds the agent processes (the keeper); default: the relay's own children. */
  pipes?: WorkerPipes;
  /** Files the relay serves its agents over ACP (`fs/*`), claims enforced (worktrees/wiring.ts). */
  files?: SessionFiles;
}

/** The relay's side of an agent's file edits (contract §10.1): reads and writes through ACP,
 * an edit's permission request checked against claims, and every edit seen (overlap). */
export interface SessionFiles {
  readFile(sessionId: string, path: string, line?: number | null, limit?: number | null): string;
  /** Throws a RelayError (its message is the agent's refusal) when the write is not allowed. */
  writeFile(sessionId: string, path: string, content: string): void;
  /** Why an edit asked for is refused (another session claims its path), or null. */
  refuseEdit(sessionId: string, req: PermissionRequest): string | null;
  /** A file edit seen: at `paths` (absolute, or relative to the session's folder) when known. */
  sawChange(sessionId: string, paths?: readonly string[]): void;
}

interface TurnCtx {
  turnId: string;
  mode: Mode;
  log: ActivityLog;
}

interface Slot {
  worker: AcpWorker;
  ready: Promise<void>;
  onChunk: ((t: string) => void) | null;
  idle?: Cancel;
  turn: TurnCtx | null;
  /** When it was last used, as a count of uses (not clock time: the test clock stands still,
   * and the order is all that matters). */
  lastUsed: number;
  /** The agent was given another relay_tool address than the relay's current one (it came
   * back on another port): it is replaced at its next idle moment. */
  stale?: boolean;
  /** A turn an earlier relay started on this worker, taken back at start (resume). */
  resuming?: { turnId: string; early: string };
  /** Its start (initialize, session/new) is done; a worker taken back has none. */
  started: boolean;
  /** Tool calls that showed a file diff and have not completed yet. */
  /** Edit tool calls not completed yet → the files their diffs name. */
  edits?: Map<string, Set<string>>;
}

/** What attachAll took back: sessions whose worker runs on, and turns to resume. */
export interface Reattached {
  sessions: Set<string>;
  /** turnId → session id: prompts still running (or answered) on a kept worker. */
  resumable: Map<string, string>;
}

export interface RunResult {
  stopReason: string;
  meta?: Record<string, unknown>;
}

const DEFAULT_MAX_WORKERS = 8;

/** Agent processes, started when a session needs one and stopped after being idle, so
 * thousands of idle sessions cost no processes; at most maxWorkers at once. */
export class Workers {
  private slots = new Map<string, Slot>();
  /** Agent processes stopped or killed whose exit has not been seen yet: until it is, they
   * still count against maxWorkers. */
  private ending = new Set<object>();
  /** Turns looking for room right now (see claim). */
  private waiting = 0;
  private uses = 0;
  private roomWaiters: (() => void)[] = [];
  private pipes: WorkerPipes;
  /** The relay let go of its workers (graceful stop): their ends are no longer ours. */
  private detached = false;

  constructor(private env: WorkerEnv) {
    this.pipes = env.pipes ?? new DirectPipes();
  }

  /** Agent processes alive: starting, running or idle, and ones still ending. */
  get count(): number {
    return this.slots.size + this.ending.size;
  }

  has(sessionId: string): boolean {
    return this.slots.has(sessionId);
  }

  private max(): number {
    const n = this.env.maxWorkers?.() ?? DEFAULT_MAX_WORKERS;
    return Number.isInteger(n) && n >= 1 ? n : DEFAULT_MAX_WORKERS;
  }

  /** Room may have been made (a turn ended, a process exited, a task ended): the turns
   * waiting for it look again. */
  recheck(): void {
    for (const w of this.roomWaiters.splice(0)) w();
  }

  /** The session's worker for a turn: its own when it runs, else a new one once there is
   * room. At the cap the idle worker unused longest is stopped to make room; when every
   * worker is busy the turn waits until one ends or goes idle. A place is taken in the same
   * synchronous step as the count is checked, and a stopped process holds its place until
   * its exit is seen, so there are never more than maxWorkers agent processes. Null when
   * the turn was given up on while it waited. */
  private async claim(session: SessionRow, signal: AbortSignal): Promise<Slot | null> {
    this.waiting++;
    try {
      for (;;) {
        if (signal.aborted) return null;
        const own = this.slots.get(session.id);
        if (own?.worker.alive && !own.stale) return own;
        // One that died, or knows an old relay_tool address: a fresh one replaces it.
        if (own) this.stop(session.id);
        if (this.count < this.max()) return this.ensure(session);
        // Enough processes are ending already for the turns that wait: no more are stopped.
        if (this.ending.size < this.waiting) {
          const idle = this.idleLongest();
          if (idle) {
            this.stop(idle);
            continue;
          }
        }
        await new Promise<void>((resolve) => {
          const done = () => {
            signal.removeEventListener("abort", done);
            resolve();
          };
          this.roomWaiters.push(done);
          signal.addEventListener("abort", done, { once: true });
        });
      }
    } finally {
      this.waiting--;
    }
  }

  /** The idle worker unused longest (no turn, session not busy), if any. */
  private idleLongest(): string | undefined {
    let best: [string, Slot] | undefined;
    for (const e of this.slots) {
      if (e[1].turn || e[1].resuming || this.env.busy(e[0])) continue;
      if (!best || e[1].lastUsed < best[1].lastUsed) best = e;
    }
    return best?.[0];
  }

  /** Over the cap (maxWorkers lowered, or more workers taken back at start than it allows):
   * idle workers are stopped until it holds again; busy ones end their work first. */
  private trim(): void {
    // (Ones ending already are on their way out: not counted here, or the rest would go too.)
    while (this.slots.size > this.max()) {
      const idle = this.idleLongest();
      if (!idle) return;
      this.stop(idle);
    }
  }

  private ensure(session: SessionRow): Slot {
    const spec = launchSpec(session.provider, this.env.settings());
    const name = getProvider(session.provider)?.name ?? session.provider;
    if (!spec)
      throw new TurnFailure(
        `${name} cannot be started on relay "${this.env.relayName}": it is not installed or not set up there (see relay_info).`,
        "config",
      );
    const slot = this.slot(
      session,
      (host) =>
        new AcpWorker(
          this.pipes.spawn(session.id, { ...spec, cwd: session.cwd }),
          session.cwd,
          host,
          adapterFor(session.provider),
        ),
    );
    slot.started = false;
    // The agent's conversation of an earlier worker is continued where it can be (agent-start.ts).
    slot.ready = slot.worker
      .start(
        this.env.mcpEntry(session),
        { sessionId: session.id, model: session.model, effort: session.effort, mode: session.mode },
        earlierConversation(session),
      )
      .then(() => {
        slot.started = true;
        this.env.onAgentStart?.(
          session.id,
          agentStartRecord(session.provider, slot.worker.sessionId, slot.worker.started, this.env.clock.now()),
        );
        const models = advertisedModels(slot.worker.advertised, adapterFor(session.provider));
        if (models.length) this.env.onModels?.(session.provider, models);
      });
    // A start that failed (e.g. not signed in) leaves no slot behind: its process is ending,
    // and the next turn must start a fresh one instead of meeting the same failed start.
    slot.ready.catch(() => {
      if (this.slots.get(session.id) === slot) this.retire(session.id, slot, "kill");
      else slot.worker.kill();
    });
    return slot;
  }

  /** A slot around a worker (new or taken back), wired to the relay. */
  private slot(session: SessionRow, make: (host: WorkerHost) => AcpWorker): Slot {
    const slot = {
      onChunk: null,
      turn: null,
      lastUsed: ++this.uses,
      ready: Promise.resolve(),
      started: true,
    } as unknown as Slot;
    const hostExtras = this.env.hostFor(session.id, () => slot.onChunk);
    const files = this.env.files;
    slot.worker = make({
      ...hostExtras,
      ...(files
        ? {
            files: {
              read: (p, line, limit) => files.readFile(session.id, p, line, limit),
              write: (p, content) => files.writeFile(session.id, p, content),
            },
          }
        : {}),
      onChunk: (t) => slot.onChunk?.(t),
      onUpdate: (u) => this.update(slot, u, session.id),
      permission: (req, signal) => {
        const t = slot.turn;
        // A request outside a turn has nobody to answer it: refused.
        if (!t) return Promise.resolve({ outcome: "cancelled" });
        // An edit of a path another session claims is refused before anyone is asked.
        const claimed = files?.refuseEdit(session.id, req);
        if (claimed) {
          t.log.add({
            sessionUpdate: "tool_call_update",
            toolCallId: req.toolCall.toolCallId,
            status: "failed",
            content: [{ type: "content", content: { type: "text", text: claimed } }],
          });
          const reject =
            req.options.find((o) => o.kind === "reject_once") ?? req.options.find((o) => o.kind === "reject_always");
          return Promise.resolve(
            reject ? { outcome: "selected", optionId: reject.optionId } : { outcome: "cancelled" },
          );
        }
        return this.env.permission(
          { sessionId: session.id, turnId: t.turnId, mode: t.mode, provider: session.provider },
          req,
          signal,
        );
      },
      onExit: () => {
        if (this.detached) return;
        // stop() and kill() take the slot out first: still here means the process died by itself.
        const unexpected = this.slots.get(session.id) === slot;
        if (unexpected) this.slots.delete(session.id);
        this.ending.delete(slot);
        slot.idle?.();
        this.env.onWorkerExit(session.id, !unexpected);
        this.recheck();
      },
    });
    this.slots.set(session.id, slot);
    return slot;
  }

  /** At start: takes back the workers a keeper held for sessions that still exist (their
   * idle timers armed again); the others end. A worker whose prompt is still outstanding
   * for the session's running turn (`runningTurn`) is set to resume it (see resume). */
  async attachAll(runningTurn: (sessionId: string) => TurnRow | undefined): Promise<Reattached> {
    const out: Reattached = { sessions: new Set(), resumable: new Map() };
    const kept = await this.pipes.reattach();
    if (!kept) return out;
    // From here to the caller's resume everything runs in this tick: the keeper's replay
    // starts on a later one (keeper/client.ts), so no line passes before its slot is ready.
    // One worker per session: the live one when the keeper lists an ended one as well.
    const bySession = new Map<string, KeptWorker>();
    for (const k of kept.kept) if (!bySession.get(k.id)?.alive) bySession.set(k.id, k);
    for (const k of bySession.values()) {
      const pipe = kept.attach(k.id);
      const session = this.env.session(k.id);
      const state = readWorkerState(k.state);
      const gone = !session || session.archived_at != null || session.deleted_at != null || !state;
      const turn = session && runningTurn(session.id);
      // An agent that ended after answering its prompt still hands the answer over.
      const answered = !k.alive && !!k.resumable && !!turn && turn.id === state?.turnId;
      if (gone || (!k.alive && !answered)) {
        pipe.kill();
        // Alive until the keeper reports its exit: it holds a place under maxWorkers till then.
        if (k.alive) {
          this.ending.add(pipe);
          void pipe.exited.then(() => {
            this.ending.delete(pipe);
            this.recheck();
          });
        }
        continue;
      }
      const slot = this.slot(
        session,
        (host) => new AcpWorker(pipe, session.cwd, host, adapterFor(session.provider), state),
      );
      if (k.alive) out.sessions.add(session.id);
      if (state.turnId && k.resumable && turn?.id === state.turnId) {
        slot.resuming = { turnId: turn.id, early: "" };
        slot.worker.takesReplay = true;
        slot.turn = { turnId: turn.id, mode: turn.mode ?? session.mode, log: new ActivityLog() };
        slot.onChunk = (t) => (slot.resuming!.early += t);
        out.resumable.set(turn.id, session.id);
      } else if (state.turnId) {
        // Its prompt belongs to no running turn any more: whatever it still does is cancelled.
        slot.worker.cancel();
        slot.worker.turnId = null;
        slot.worker.saveState();
      }
      const current = this.env.mcpEntry(session)?.url ?? null;
      if ((state.mcpUrl ?? null) !== current) slot.stale = true;
      // Idle now: replaced at once (a background task it runs keeps it until it is idle).
      if (!slot.resuming && slot.stale && !this.env.busy(session.id)) this.stop(session.id);
      else if (!slot.resuming) this.armIdle(session.id);
    }
    this.trim();
    return out;
  }

  /** Graceful stop: the workers stay with the keeper for the next start. */
  detachAll(): void {
    this.detached = true;
    for (const slot of this.slots.values()) slot.idle?.();
    this.slots.clear();
    this.ending.clear();
    this.pipes.detach();
  }

  /** A session/update other than reply text: kept with the turn (activity, usage). */
  private update(slot: Slot, u: Record<string, unknown>, sessionId: string): void {
    const t = slot.turn;
    if (u.sessionUpdate === "usage_update") {
      const cost = (u.cost as { amount?: unknown; currency?: unknown } | null | undefined) ?? null;
      if (cost && typeof cost.amount === "number" && (cost.currency ?? "USD") === "USD") {
        const share = cost.amount - (slot.worker.costSoFar ?? 0);
        slot.worker.costSoFar = cost.amount;
        slot.worker.saveState();
        if (t && share > 0) t.log.usage.costUsd = round((t.log.usage.costUsd ?? 0) + share);
      }
      return;
    }
    const counted = usageOfUpdate(u);
    if (t && counted) addUsage(t.log.usage, counted);
    t?.log.add(u);
    // A tool call that showed a file diff changed a file once it completes: overlaps are looked
    // for at once (not before: an edit reported while pending has not reached the disk yet).
    const id = typeof u.toolCallId === "string" ? u.toolCallId : null;
    if (id && this.env.files) {
      const edits = (slot.edits ??= new Map());
      const diffs = Array.isArray(u.content)
        ? u.content.filter((c) => (c as { type?: unknown } | null)?.type === "diff")
        : [];
      if (diffs.length) {
        const paths = edits.get(id) ?? new Set<string>();
        for (const c of diffs)
          if (typeof (c as { path?: unknown }).path === "string") paths.add((c as { path: string }).path);
        edits.set(id, paths);
      }
      const paths = edits.get(id);
      // Where the diffs named their files only those are read again; else the whole folder.
      if (u.status === "completed" && paths && edits.delete(id))
        this.env.files.sawChange(sessionId, paths.size ? [...paths] : undefined);
    }
  }

  /** Turns an error into the turn's failure (provider's words, sign-in hints, activity). */
  private failure(session: SessionRow, log: ActivityLog) {
    const name = getProvider(session.provider)?.name ?? session.provider;
    // The scripted test agent's errors are its script's words (contract §4.1 `/error TEXT`): kept as they are.
    const scriptedAgent = session.provider === "scripted" || fakeProviders().ids.has(session.provider);
    return (err: unknown, stderr?: string) => {
      if (scriptedAgent) {
        const e = err instanceof Error ? err : new Error(String((err as { message?: unknown } | null)?.message ?? err));
        if (stderr && /exited during the turn/.test(e.message))
          e.message += ` Its last output: ${stderr.trim().slice(-300)}`;
        return Object.assign(e, { meta: log.meta() });
      }
      const f = describeFailure(err, {
        providerName: name,
        relayName: this.env.relayName,
        signIn: signInFor(session.provider, this.env.settings()),
        stderr,
      });
      if (f.kind === "auth") this.env.onAuthFailure?.(session.provider);
      return Object.assign(f, { meta: log.meta() });
    };
  }

  /** The prompt's answer made into the turn's result (usage, the model that ran). */
  private settle(
    session: SessionRow,
    slot: Slot,
    log: ActivityLog,
    res: { stopReason: string },
    replyText: string,
  ): RunResult {
    const refused = adapterFor(session.provider)?.replyFailure?.(replyText);
    if (refused) throw new Error(refused);
    // Each agent's way of reporting its counts: reported-usage.ts.
    const u = usageOfPromptResult(res);
    if (u) Object.assign(log.usage, u);
    if (Object.keys(log.usage).length) this.env.onUsage?.(session.provider, session.id, log.usage);
    const ran = slot.worker.runningModel;
    return { stopReason: res.stopReason, meta: { ...log.meta(), ...(ran ? { model: ran } : {}) } };
  }

  /** After a turn on the slot: its chunks and activity go nowhere, its idle time starts. */
  private afterTurn(sessionId: string, slot: Slot, log: ActivityLog, mine: ((t: string) => void) | null): void {
    // Only our own: a turn given up on (see Turns.end) must not cut off the next one's chunks.
    if (slot.onChunk === mine) slot.onChunk = null;
    if (slot.turn?.log === log) slot.turn = null;
    // (The worker's turnId stays stored until the turn's end is in the store: recorded.)
    slot.lastUsed = ++this.uses;
    this.armIdle(sessionId);
    // The turn is recorded as ended just after this (Turns.finish): look for room then, and
    // replace a worker that knows an old relay_tool address.
    setImmediate(() => {
      if (slot.stale && this.slots.get(sessionId) === slot && !slot.turn && !this.env.busy(sessionId))
        this.stop(sessionId);
      this.trim();
      this.recheck();
    });
  }

  /** A turn started now would have its prompt handed to the agent in the same task, with no
   * wait: the session's worker runs, is started and idle, knows the current relay_tool
   * address and needs no setting changed first (Turns then records the prompt with the
   * turn's start, in one write). */
  promptsAtOnce(session: SessionRow, turn: TurnRow): boolean {
    const slot = this.slots.get(session.id);
    if (!slot?.started || slot.turn || slot.resuming || slot.stale || !slot.worker.alive) return false;
    return slot.worker.settledFor({
      model: turn.model ?? session.model,
      effort: session.effort,
      mode: turn.mode ?? session.mode,
    });
  }

  async run(
    session: SessionRow,
    turn: TurnRow,
    text: string,
    onChunk: (t: string) => void,
    signal: AbortSignal,
  ): Promise<RunResult> {
    const name = getProvider(session.provider)?.name ?? session.provider;
    const log = new ActivityLog();
    const failure = this.failure(session, log);
    // Recorded with the turn's start (Turns.startNext) and still so: not written again.
    const prompted = turn.prompted_at != null && this.promptsAtOnce(session, turn);
    let slot: Slot | null;
    try {
      slot = await this.claim(session, signal);
    } catch (err) {
      throw failure(err);
    }
    if (!slot) return { stopReason: "cancelled" };
    slot.idle?.();
    slot.idle = undefined;
    slot.turn = { turnId: turn.id, mode: turn.mode ?? session.mode, log };
    slot.lastUsed = ++this.uses;
    const exitError = () => new Error("The agent process exited during the turn.");
    const exited = slot.worker.exited.then(() => {
      throw exitError();
    });
    exited.catch(() => {});
    const onAbort = () => slot.worker.cancel();
    let mine: ((t: string) => void) | null = null;
    try {
      await Promise.race([slot.ready, exited]);
      if (signal.aborted) return { stopReason: "cancelled" };
      // The session's settings as they are now (update_session, send, the owner may have
      // changed them; not when nothing was waited for since the caller read them).
      const now = prompted ? session : (this.env.session(session.id) ?? session);
      await Promise.race([
        slot.worker
          .configure({ model: turn.model ?? now.model, effort: now.effort, mode: turn.mode ?? now.mode })
          .catch((err) => {
            throw new TurnFailure(
              `${name} did not accept the session's settings (model ${turn.model ?? now.model}, mode ${turn.mode ?? now.mode}${now.effort ? `, effort ${now.effort}` : ""}): ${(err as Error)?.message ?? err}. Change them with update_session and send again.`,
              "config",
            );
          }),
        exited,
      ]);
      const startNote = await Promise.race([slot.worker.beforePrompt(), exited]);
      // The prompt goes out without relay_tool (the agent did not connect it): the session says so.
      const record = startNote && withStartNote(this.env.session(session.id) ?? session, startNote);
      if (record) this.env.onAgentStart?.(session.id, record);
      if (signal.aborted) return { stopReason: "cancelled" };
      let replyText = "";
      const collect = (t: string) => {
        replyText += t;
        onChunk(t);
      };
      slot.onChunk = mine = collect;
      signal.addEventListener("abort", onAbort, { once: true });
      // In the store before the agent can see it: a turn whose prompt never went out is run
      // again after a crash (Turns.recover), one that went out is resumed or ends as an error.
      if (!prompted) this.env.onPrompt?.(turn.id);
      // Kept with the process: a relay that starts again mid-prompt resumes this turn.
      slot.worker.turnId = turn.id;
      slot.worker.saveState();
      const res = await Promise.race([
        slot.worker.prompt(text, {
          model: turn.model ?? now.model,
          effort: now.effort,
          mode: turn.mode ?? now.mode,
          ...openAiAgentMeta(session.provider, now.extra_json),
        }),
        exited,
      ]);
      return this.settle(session, slot, log, res, replyText);
    } catch (err) {
      // A dying agent closes the pipe a moment before its exit is seen: say what happened
      // instead of the transport's "connection closed".
      // (An error the agent answered, with its JSON-RPC code, is that error even when the
      // relay then ended the process, as it does after a failed start.)
      const answered = typeof (err as { code?: unknown } | null)?.code === "number" || err instanceof TurnFailure;
      if (!answered && slot.worker.disconnected) {
        await Promise.race([slot.worker.exited, new Promise((r) => setTimeout(r, 2000).unref())]);
        if (!slot.worker.alive) throw failure(exitError(), slot.worker.stderr);
      }
      throw failure(err, slot.worker.stderr);
    } finally {
      signal.removeEventListener("abort", onAbort);
      this.afterTurn(session.id, slot, log, mine);
    }
  }

  /** A turn an earlier relay started, still running (or answered) on a worker taken back
   * at start: its whole reply so far is replayed by the keeper, then the prompt's answer. */
  async resume(
    session: SessionRow,
    turn: TurnRow,
    onChunk: (t: string) => void,
    signal: AbortSignal,
  ): Promise<RunResult> {
    const slot = this.slots.get(session.id);
    const log = slot?.turn?.turnId === turn.id ? slot.turn.log : new ActivityLog();
    const failure = this.failure(session, log);
    if (!slot || slot.resuming?.turnId !== turn.id)
      throw failure(new Error("The agent process exited during the turn."));
    let replyText = "";
    const collect = (t: string) => {
      replyText += t;
      onChunk(t);
    };
    const early = slot.resuming.early;
    slot.resuming = undefined;
    slot.onChunk = collect;
    if (early) collect(early);
    const exited = slot.worker.exited.then(() => {
      throw new Error("The agent process exited during the turn.");
    });
    exited.catch(() => {});
    const onAbort = () => slot.worker.cancel();
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      const answer = await Promise.race([slot.worker.earlierPromptResult(), exited]);
      if (answer.error !== undefined) {
        const e = answer.error as { message?: unknown; code?: unknown; data?: unknown } | null;
        throw Object.assign(
          new Error(typeof e?.message === "string" ? e.message : JSON.stringify(e)),
          typeof e?.code === "number" ? { code: e.code, data: e.data } : {},
        );
      }
      const res = (answer.result ?? {}) as { stopReason?: unknown };
      return this.settle(
        session,
        slot,
        log,
        { ...res, stopReason: typeof res.stopReason === "string" ? res.stopReason : "end_turn" },
        replyText,
      );
    } catch (err) {
      throw failure(err, slot.worker.stderr);
    } finally {
      signal.removeEventListener("abort", onAbort);
      this.afterTurn(session.id, slot, log, collect);
    }
  }

  /** The turn's end is in the store: a restart from now on must not take it back (the
   * keeper may keep a delivered prompt answer until this state says so). */
  recorded(sessionId: string, turnId: string): void {
    const w = this.slots.get(sessionId)?.worker;
    if (!w || w.turnId !== turnId) return;
    w.turnId = null;
    // After this task: the answer that waits on the turn's end goes out first (waking the
    // keeper now would compete with it for a core), and a next turn started meanwhile has
    // sent its own state.
    setImmediate(() => {
      if (w.turnId === null) w.saveState();
    });
  }

  /** Stops the worker once the session has been idle a while (checked again when due). */
  armIdle(sessionId: string): void {
    const slot = this.slots.get(sessionId);
    if (!slot) return;
    slot.idle?.();
    slot.idle = this.env.clock.at(this.env.clock.now() + this.env.idleMinutes * MINUTE, () => {
      slot.idle = undefined;
      if (this.env.busy(sessionId)) return this.armIdle(sessionId);
      this.stop(sessionId);
    });
  }

  stop(sessionId: string): void {
    const slot = this.slots.get(sessionId);
    if (slot) this.retire(sessionId, slot, "stop");
  }

  kill(sessionId: string): boolean {
    const slot = this.slots.get(sessionId);
    if (slot) this.retire(sessionId, slot, "kill");
    return !!slot;
  }

  /** Takes the slot out and ends its process (politely or at once); the process holds its
   * place under maxWorkers until its exit is seen (onExit). */
  private retire(sessionId: string, slot: Slot, how: "stop" | "kill"): void {
    this.slots.delete(sessionId);
    slot.idle?.();
    if (slot.worker.alive) this.ending.add(slot);
    if (how === "stop") slot.worker.stop();
    else slot.worker.kill();
    this.recheck();
  }

  stopAll(): void {
    for (const id of [...this.slots.keys()]) this.kill(id);
  }
}

const round = (n: number) => Math.round(n * 1e6) / 1e6;
