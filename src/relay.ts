import { hostname } from "node:os";
import { join } from "node:path";
import { homedir } from "node:os";
import { Bus } from "./core/bus.ts";
import { ManualClock, RealClock, type Clock } from "./core/clock.ts";
import { SettingsStore } from "./core/settings.ts";
import { openDb, type Db } from "./store/db.ts";
import { SessionStore } from "./sessions/session-store.ts";
import { Turns, type TurnRunner } from "./sessions/turns.ts";
import { Workers } from "./providers/workers.ts";
import { KeeperPipes } from "./providers/worker-pipes.ts";
import { TaskStore } from "./tasks/task-store.ts";
import { Questions } from "./questions/ask-user.ts";
import { Approvals } from "./approvals/approvals.ts";
import { Schedules } from "./schedules/schedules.ts";
import { Asks } from "./questions/asks.ts";
import type { SessionRow } from "./sessions/types.ts";
import { installGroupLifetime } from "./groups/lifetime.ts";
import { RELAY_MCP_NAME, type McpEntry } from "./providers/acp-worker.ts";
import type { DeliveryApi } from "./watching/delivery.ts";
import { Watching } from "./watching/watching.ts";
import { Pairing } from "./pairing/pairing.ts";
import { secureDataDir } from "./core/data-dir.ts";
import { SecretMask } from "./core/secret-mask.ts";
import { agentTokenLookups } from "./sessions/agent-tokens.ts";
import { wireProviders } from "./app/wire-providers.ts";
import { PairingStore } from "./pairing/store.ts";
import type { ProviderProbes } from "./providers/probes.ts";
import { installWorkspaceCleanup } from "./cloud/lifetime.ts";
import { ToolListings } from "./mcp/tool-listings.ts";
import { sessionFolders } from "./sessions/folders.ts";
import { RecentFolders } from "./sessions/recent-folders.ts";
import type { ActionServices } from "./actions/services.ts";
import { servicesOf } from "./app/services.ts";
import { ownerMessage } from "./actions/commands/owner-message.ts";
import { archiveSession } from "./actions/commands/archive-session.ts";
import { deleteSession } from "./actions/commands/delete-session.ts";
import { compactSession } from "./actions/commands/compact-session.ts";
import { moveMirrors } from "./pairing/compaction.ts";

export const VERSION = "0.9.19";

export interface RelayOptions {
  dataDir?: string;
  name?: string;
  testClock?: boolean;
  emulateVersion?: string;
  workerIdleMinutes?: number;
  /** bench/watching.ts: turns end without agent processes. */
  runner?: TurnRunner;
}

/** Everything one relay daemon holds, wired once. Domains get what they need from here;
 * the HTTP, MCP and (later) peer surfaces are thin adapters over it. */
export class Relay {
  readonly dataDir: string;
  readonly name: string;
  readonly version: string;
  readonly clock: Clock;
  readonly db: Db;
  readonly bus = new Bus();
  readonly settings: SettingsStore;
  readonly sessions: SessionStore;
  readonly turns: Turns;
  readonly workers: Workers;
  readonly tasks: TaskStore;
  readonly questions: Questions;
  readonly approvals: Approvals;
  readonly schedules: Schedules;
  readonly asks: Asks;
  /** Availability probes of the CLI providers (providers/probes.ts). */
  readonly probes: ProviderProbes;
  /** Set once the HTTP server listens: where agents reach /mcp, and the web UI. */
  mcpUrl = "";
  baseUrl = "";
  ownerToken = "";
  readonly defaultCwd = homedir();
  readonly folders = new RecentFolders();
  /** Watching (subscriptions) plugs in here: badges in lists, and no echo of own prompts. */
  watching?: { isWatched(sessionId: string): boolean; watchingCount(sessionId: string): number };
  watchingHooks?: { promptSent(watcher: string, turnId: string): void; replyReceived(watcher: string, turnId: string, status: string): void };
  /** Relay events to a conversation without a subscription (e.g. question_answered): watching/delivery.ts. */
  readonly delivery: DeliveryApi;
  readonly watch: Watching;
  /** Paired relays (src/pairing/): pairing, the peer API, locking, events across links. */
  readonly pairing: Pairing;
  /** Masks secrets in text leaving the relay (results, owner API, UI stream). */
  readonly secretMask: SecretMask;
  /** Whose agents have listed relay_tool on /mcp (mcp/tool-listings.ts). */
  readonly toolListings = new ToolListings();
  /** What relay_tool's handlers get (actions/services.ts), built once everything above is. */
  readonly services: ActionServices;

  constructor(opts: RelayOptions = {}) {
    this.dataDir = opts.dataDir ?? join(homedir(), ".oar");
    this.name = opts.name ?? hostname();
    this.version = opts.emulateVersion ?? VERSION;
    this.clock = opts.testClock ? new ManualClock(Date.now()) : new RealClock();
    secureDataDir(this.dataDir);
    this.db = openDb(join(this.dataDir, "oar.db"));
    this.settings = new SettingsStore(this.db, this.clock);
    this.secretMask = new SecretMask({ known: () => this.secrets(), ...agentTokenLookups(this.db) });
    this.tasks = new TaskStore({
      db: this.db, clock: this.clock, bus: this.bus, dataDir: this.dataDir,
      limits: () => {
        const s = this.settings.get();
        return { perTaskBytes: s.taskOutputMaxMb * 1024 * 1024, totalBytes: s.taskOutputTotalMb * 1024 * 1024 };
      },
    });
    this.sessions = new SessionStore({ db: this.db, clock: this.clock, tasks: this.tasks });
    this.questions = new Questions(this.db, this.clock, this.bus);
    this.approvals = new Approvals(this);
    const pairingStore = new PairingStore(this.db, this.clock);
    const providers = wireProviders({
      relayName: this.name, clock: this.clock, bus: this.bus, settings: this.settings, approvals: this.approvals,
      sessions: this.sessions, tasks: this.tasks, questions: this.questions, address: this,
      toolOffered: () => this.settings.get().agentSessions || pairingStore.anyAllowed(),
      pipes: new KeeperPipes(this.dataDir), idleMinutes: opts.workerIdleMinutes ?? 10, toolListings: this.toolListings,
    });
    this.probes = providers.probes;
    this.workers = providers.workers;
    this.turns = new Turns({ store: this.sessions, clock: this.clock, bus: this.bus, runner: opts.runner ?? providers.runner, maxTurnMinutes: () => this.settings.get().maxTurnMinutes });
    this.schedules = new Schedules(this);
    this.watch = new Watching({ ...this, version: this.version, sessions: this.sessions, remoteOutbox: { add: (w, e) => this.pairing.outbox.add(w, e) } });
    this.delivery = this.watch.delivery;
    this.asks = new Asks(this);
    this.pairing = new Pairing({ ...this, store: pairingStore, isSelfName: (r) => this.isSelfName(r) });
    this.watching = this.watch.port.badges;
    this.watchingHooks = this.watch.port.noEcho;
    installGroupLifetime(this);
    installWorkspaceCleanup({ bus: this.bus, dataDir: this.dataDir, ...sessionFolders(this.db) });
    providers.listen();
    this.services = servicesOf(this);
  }

  /** Starts what was waiting when the relay went down: first the workers that ran on
   * (the keeper), so their running turns are taken back instead of ended. */
  async start(): Promise<void> {
    this.questions.recover();
    this.approvals.recover();
    const kept = await this.workers.attachAll((id) => this.sessions.activeTurns(id).find((t) => t.status === "running"));
    // Same tick as attachAll's end: the replays of resumed turns come on a later one.
    for (const sessionId of this.turns.recover(kept.resumable)) this.turns.kick(sessionId);
    this.tasks.recover(kept.sessions);
    this.watch.start();
    this.schedules.start();
    this.pairing.start();
    this.tasks.start();
    this.probes.startAll();
  }

  /** `keepWorkers` (a graceful stop: upgrade, service restart): the agents stay with the
   * keeper, their turns running, for the next start to take back. Otherwise they end. */
  close(opts: { keepWorkers?: boolean } = {}): void {
    this.pairing.stop();
    if (opts.keepWorkers) {
      this.turns.shutdown();
      this.workers.detachAll();
    } else this.workers.stopAll();
    this.db.close();
  }

  /** contract §5.1: relay_tool is offered when agent sessions are on (or, with pairing, a
   * paired relay allows more than off). */
  toolOffered(): boolean {
    return this.settings.get().agentSessions || this.pairing.anyAllowed();
  }

  mcpEntry(s: SessionRow): McpEntry {
    return { name: RELAY_MCP_NAME, url: this.mcpUrl, headers: { Authorization: `Bearer ${s.agent_token}` } };
  }

  isSelfName(relay: string): boolean {
    const r = relay.trim().toLowerCase();
    return r === "this" || r === this.name.toLowerCase();
  }

  /** @deprecated actions/commands/owner-message.ts (issue 19, step 2). */
  ownerMessage(sessionId: string, text: string): { messageId: string; turnId: string } {
    return ownerMessage(this.services, sessionId, text);
  }

  openUrl(sessionId: string): string | undefined {
    return this.baseUrl ? `${this.baseUrl}/#session=${sessionId}` : undefined;
  }

  /** Strings that must never show in results or task output (agent tokens: secretMask). */
  secrets(): string[] {
    return [this.ownerToken, ...this.settings.secretValues(), ...(this.pairing?.secrets() ?? [])].filter(Boolean);
  }

  /** @deprecated actions/commands/archive-session.ts (issue 19, step 2). */
  archiveSession(id: string): void {
    archiveSession(this.services, id);
  }

  /** @deprecated actions/commands/compact-session.ts (issue 19, step 2). */
  compactSession(id: string): SessionRow {
    return compactSession({ ...this.services, mirrors: { move: (from, to) => moveMirrors(this, from, to) } }, id);
  }

  /** @deprecated actions/commands/delete-session.ts (issue 19, step 2). */
  deleteSession(id: string): void {
    deleteSession(this.services, id);
  }

  /** @deprecated `folders.recent()` (issue 19, step 2). */
  get recentCwds(): readonly string[] {
    return this.folders.recent();
  }

  /** @deprecated `folders.note()` (issue 19, step 2). */
  noteCwd(cwd: string): void {
    this.folders.note(cwd);
  }
}
