import { join } from "node:path";
import { Bus } from "../core/bus.ts";
import { ManualClock, RealClock } from "../core/clock.ts";
import { SettingsStore } from "../core/settings.ts";
import { secureDataDir } from "../core/data-dir.ts";
import { SecretMask } from "../core/secret-mask.ts";
import { openDb } from "../store/db.ts";
import { SessionStore } from "../sessions/session-store.ts";
import { Turns, type TurnRunner } from "../sessions/turns.ts";
import { RecentFolders } from "../sessions/recent-folders.ts";
import { agentTokenLookups } from "../sessions/agent-tokens.ts";
import { sessionFolders } from "../sessions/folders.ts";
import { sessionReads } from "../sessions/reads.ts";
import { KeeperPipes } from "../providers/worker-pipes.ts";
import { TaskStore } from "../tasks/task-store.ts";
import { Questions } from "../questions/ask-user.ts";
import { Asks } from "../questions/asks.ts";
import { makeAnswering } from "../questions/answering.ts";
import { Approvals } from "../approvals/approvals.ts";
import { Schedules } from "../schedules/schedules.ts";
import { installGroupLifetime } from "../groups/lifetime.ts";
import { budgetTargets, buildBudgets } from "../budgets/install.ts";
import { WorktreeWiring } from "../worktrees/wiring.ts";
import { Groups } from "../groups/service.ts";
import { Watching } from "../watching/watching.ts";
import { Pairing } from "../pairing/pairing.ts";
import { PairingStore } from "../pairing/store.ts";
import { PeerOutbox } from "../pairing/outbox.ts";
import { moveMirrors } from "../pairing/compaction.ts";
import { installWorkspaceCleanup } from "../cloud/lifetime.ts";
import { ownerMessage } from "../actions/commands/owner-message.ts";
import { archiveSession } from "../actions/commands/archive-session.ts";
import { deleteSession } from "../actions/commands/delete-session.ts";
import { compactSession } from "../actions/commands/compact-session.ts";
import type { ActionServices } from "../actions/services.ts";
import { makeIdentity, type IdentityOptions } from "./identity.ts";
import { ownerToken } from "./owner-token.ts";
import { buildNotify } from "../notify/notify.ts";
import { installNotifyHooks } from "../notify/hooks.ts";
import type { Notifier } from "../notify/notifier.ts";
import { cardView } from "../approvals/card-store.ts";
import { fingerprintOf } from "../ops/tls.ts";
import { ListenAddress } from "./address.ts";
import { mcpEntry, wireProviders } from "./wire-providers.ts";
import { ToolListings } from "../mcp/tool-listings.ts";
import { RelayApp } from "./relay-app.ts";
import type { AppServices } from "./services.ts";

export interface BuildOptions extends IdentityOptions {
  testClock?: boolean;
  workerIdleMinutes?: number;
  /** bench/watching.ts: turns end without agent processes. */
  runner?: TurnRunner;
  /** Serve https with this certificate and key (PEM text): page, owner API, MCP, peer API. */
  tls?: { cert: string; key: string };
}

/** Builds one relay: every domain once, in the order they need each other (each line gets
 * only what is built above it), and the services the HTTP, MCP and peer surfaces get. */
export function buildRelay(opts: BuildOptions = {}): RelayApp {
  const identity = makeIdentity(opts);
  const { dataDir } = identity;
  const clock = opts.testClock ? new ManualClock(Date.now()) : new RealClock();
  const bus = new Bus();
  secureDataDir(dataDir);
  const db = openDb(join(dataDir, "oar.db"));
  // A budget's targets are looked up when the setting changes, after everything is built.
  const settings = new SettingsStore(
    db,
    clock,
    budgetTargets({ db, settings: { get: () => settings.get() }, sessions: { get: (id) => sessions.get(id) } }),
  );
  const token = ownerToken(dataDir);
  const address = new ListenAddress();
  const transaction = <T>(fn: () => T): T => db.transaction(fn)();

  const tasks = new TaskStore({
    db,
    clock,
    bus,
    dataDir,
    limits: () => {
      const s = settings.get();
      return { perTaskBytes: s.taskOutputMaxMb * 1024 * 1024, totalBytes: s.taskOutputTotalMb * 1024 * 1024 };
    },
  });
  const sessions = new SessionStore({ db, clock, tasks });
  const folders = new RecentFolders();
  const questions = new Questions(db, clock, bus);
  const approvals = new Approvals({ db, clock, bus, settings, sessions });
  const pairingStore = new PairingStore(db, clock);
  const toolListings = new ToolListings();
  const providers = wireProviders({
    relayName: identity.name,
    clock,
    bus,
    settings,
    approvals,
    sessions,
    tasks,
    questions,
    address,
    // contract §5.1: relay_tool is offered when agent sessions are on (or, with pairing, a
    // paired relay allows more than off).
    toolOffered: () => settings.get().agentSessions || pairingStore.anyAllowed(),
    pipes: new KeeperPipes(dataDir),
    idleMinutes: opts.workerIdleMinutes ?? 10,
    toolListings,
    // Bound late on purpose: worktrees (below) raise through watching, which queues turns on these workers.
    files: {
      readFile: (sessionId, path, line, limit) => worktreeWiring.readFile(sessionId, path, line, limit),
      writeFile: (sessionId, path, content) => worktreeWiring.writeFile(sessionId, path, content),
      refuseEdit: (sessionId, req) => worktreeWiring.refuseEdit(sessionId, req),
      sawChange: (sessionId) => worktreeWiring.sawChange(sessionId),
    },
  });
  const { probes, workers } = providers;
  const { holds, pendingNotices } = buildBudgets({
    db,
    clock,
    bus,
    settings,
    sessions,
    cards: approvals.cards,
    kick: (id) => turns.kick(id),
    dropQueued: (sessionId, turnId) => turns.dropQueued(sessionId, turnId),
    tellCaller: (from, turn, usage) => peerOutbox.addSpend(from, turn, usage, clock.now()),
  });
  const turns = new Turns({
    store: sessions,
    clock,
    bus,
    runner: opts.runner ?? providers.runner,
    maxTurnMinutes: () => settings.get().maxTurnMinutes,
    gate: holds,
  });
  const schedules = new Schedules({ db, clock, bus, sessions, turns, approvals });
  // Events for watchers on paired relays wait here until their relay fetches them.
  const peerOutbox = new PeerOutbox({ db, clock }, pairingStore);
  const watch = new Watching({
    db,
    clock,
    bus,
    version: identity.version,
    sessions,
    tasks,
    questions,
    turns,
    remoteOutbox: peerOutbox,
  });
  const answering = makeAnswering({
    name: identity.name,
    questions,
    sessions,
    pairing: pairingStore,
    delivery: watch.port,
  });
  const asks = new Asks({ db, clock, bus, questions, sessions });
  const pairing = new Pairing({
    db,
    clock,
    bus,
    store: pairingStore,
    name: identity.name,
    version: identity.version,
    isSelfName: identity.isSelf,
    settings,
    sessions,
    outbox: peerOutbox,
    watch: watch.mirrors,
    remoteSpend: (r) => holds.recordRemote(r),
  });
  // Strings that must never show in results or task output (agent tokens: secretMask).
  const secrets = () => [token, ...settings.secretValues(), ...pairing.secrets()].filter(Boolean);
  const secretMask = new SecretMask({ known: secrets, ...agentTokenLookups(db) });
  installGroupLifetime({ db, clock, bus, sessions });
  installWorkspaceCleanup({ bus, dataDir, ...sessionFolders(db) });
  const worktreeWiring = new WorktreeWiring({
    db,
    clock,
    dataDir,
    relayName: identity.name,
    bus,
    mask: (t) => secretMask.maskText(t),
    session: (id) => sessions.get(id),
    raise: (id, e, skip) => watch.port.raise(id, { ...e, type: "overlap" }, skip),
  });
  // Notifications to the owner (src/notify/, contract §10.3): needs raised from the bus.
  const notify = buildNotify({
    db,
    clock,
    settings: () => settings.get().notify,
    relayName: () => identity.name,
    pageUrl: () => `${address.baseUrl}/`,
    log: (l) => console.error(l),
  });
  const notifyHooks = installNotifyHooks({
    bus,
    notifier: crashBeforeNeed(opts, notify.notifier),
    turnsDone: () => settings.get().notify.turnsDone,
    mask: (t) => secretMask.maskText(t),
    card: (id) => {
      const c = approvals.get(id);
      return c && cardView(c);
    },
    question: (id) => questions.get(id),
    turn: (id) => sessions.turn(id),
    sessionTitle: (id) => sessions.get(id)?.title ?? null,
    pendingCards: () => approvals.pending().map((c) => c.id),
    pendingQuestions: () => questions.pending().map((q) => q.id),
    pendingNotices,
  });
  bus.on((e) => e.type === "settings.updated" && notify.notifier.settingsChanged());
  // Served over https (--tls-cert): its certificate's SHA-256 fingerprint, which pairing tokens carry.
  const tlsFingerprint = opts.tls ? fingerprintOf(opts.tls.cert) : null;
  providers.listen();
  const groups = new Groups({ db, clock, sessions, identity });
  const actions: ActionServices = {
    identity,
    clock,
    settings,
    sessions,
    turns,
    tasks,
    questions,
    answering,
    asks,
    approvals,
    schedules,
    watching: watch.port,
    pairing,
    workers,
    folders,
    budgets: holds,
    worktrees: worktreeWiring.worktrees,
    worktreeEnded: (id) => worktreeWiring.endedNote(id),
    address,
    secrets,
    groups,
    probes,
    bus,
    transaction,
    sessionReads: sessionReads({ db, sessions, tasks, pairing: pairingStore, watching: watch.port.badges }),
  };
  const services: AppServices = {
    ...actions,
    probes,
    bus,
    ownerToken: token,
    secretMask,
    testClock: clock instanceof ManualClock ? clock : undefined,
    ownerMessage: (sessionId, text) => ownerMessage(actions, sessionId, text),
    archiveSession: (id) => archiveSession(actions, id),
    deleteSession: (id) => deleteSession(actions, id),
    compactSession: (id) =>
      compactSession(
        { ...actions, mirrors: { move: (from, to) => moveMirrors({ db, clock, pairing }, from, to) } },
        id,
      ),
    mcpEntry: (s) => mcpEntry(address, s),
    toolListings,
    notify,
    tlsFingerprint: () => tlsFingerprint,
  };
  return new RelayApp(services, {
    db,
    clock,
    bus,
    sessions,
    turns,
    workers,
    probes,
    tasks,
    questions,
    approvals,
    schedules,
    watch,
    pairing,
    worktrees: worktreeWiring.worktrees,
    address,
    notify,
    notifyHooks,
  });
}

/** Test-only (with --test-clock): `OAR_TEST_CRASH_BEFORE_NEED=<key prefix>` (e.g. `card:`)
 * SIGKILLs the relay when such a need is about to be recorded, after what raised it was
 * committed: the crash window start-up's catch-up closes (test/notify-crash-window.test.ts). */
function crashBeforeNeed(opts: BuildOptions, n: Notifier): Pick<Notifier, "raise" | "settle" | "store"> {
  const prefix = opts.testClock ? process.env.OAR_TEST_CRASH_BEFORE_NEED : undefined;
  if (!prefix) return n;
  return {
    store: n.store,
    settle: (key) => n.settle(key),
    raise: (need) => {
      if (need.key.startsWith(prefix)) process.kill(process.pid, "SIGKILL");
      return n.raise(need);
    },
  };
}
