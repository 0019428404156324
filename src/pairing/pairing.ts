import type { z } from "zod";
import { RelayError } from "../core/errors.ts";
import type { SessionRow } from "../sessions/types.ts";
import { lastOwnerMessageAt } from "../sessions/last-owner-message.ts";
import { endAsksBy, pendingAsksBy } from "../questions/pending-asks-by.ts";
import type { QuestionRow } from "../questions/ask-user.ts";
import { checkRelayUrl } from "./url-check.ts";
import { type PairingStore, isRemoteCallerId, type ClientRow, type RelayRow } from "./store.ts";
import { AGENTS_MAY, type AgentsMay } from "./levels.ts";
import { mentions } from "./mentions.ts";
import {
  PeerAnswerTooLarge,
  PeerOffline,
  PeerPinMismatch,
  PeerUnreachable,
  answerLimitBytes,
  peerRequest,
  type PeerResponse,
} from "./peer-http.ts";
import { PairAnswer, type CallBody } from "./peer-protocol.ts";
import { normalizeFingerprint } from "../ops/tls.ts";
import { parseOrigin, type Origin } from "./origin.ts";
import { EventLink } from "./event-link.ts";
import type { PeerOutbox } from "./outbox.ts";
import { RemoteWaits } from "./remote-waits.ts";
import { RemoteInbox } from "./remote-inbox.ts";
import { StandIns } from "./stand-ins.ts";
import { UnpairTells } from "./unpair-tells.ts";
import { mirrorAfter } from "./mirrors.ts";
import { applyMoves } from "./compaction.ts";
import { endUnsubscribed, subStates } from "./stand-in-subs.ts";
import type { PairingDeps, PeerCallOptions } from "./deps.ts";

/** The paired-relays domain (seed §1, §5, §6; contract §5.6), wired once into the relay. */
export class Pairing {
  readonly store: PairingStore;
  readonly link: EventLink;
  readonly outbox: PeerOutbox;
  readonly waits: RemoteWaits;
  readonly inbox: RemoteInbox;
  readonly standIns: StandIns;
  readonly tells: UnpairTells;

  constructor(private relay: PairingDeps) {
    this.store = relay.store;
    this.link = new EventLink(relay, this);
    this.outbox = relay.outbox;
    this.waits = new RemoteWaits(relay);
    this.inbox = new RemoteInbox(this);
    this.standIns = new StandIns(relay.db, this.store);
    this.tells = new UnpairTells(relay);
  }

  start(): void {
    this.link.start();
    this.tells.start();
  }

  stop(): void {
    this.link.stop();
    this.tells.stop();
  }

  /** contract §5.1: a paired relay with Agents-may above off offers relay_tool too. */
  anyAllowed(): boolean {
    return this.store.anyAllowed();
  }

  private credentials: string[] | null = null;

  /** The credentials this relay holds (masked wherever text leaves it; read on every answer). */
  secrets(): string[] {
    return (this.credentials ??= [...this.store.relays().map((r) => r.credential), ...this.tells.credentials()]);
  }

  // ---- pairing and unpairing ----

  /** POST /api/relays on A: exchanges B's token for a credential both sides keep. */
  async pair(body: Record<string, unknown>): Promise<RelayRow> {
    const tail = "Nothing was paired.";
    const name = typeof body.name === "string" ? body.name.trim() : "";
    if (!name || name.length > 100 || /\s/.test(name))
      throw new RelayError(
        "REMOTE_RELAY_INVALID_INPUT",
        `name is what agents call the relay: one word, at most 100 characters. ${tail}`,
      );
    if (this.relay.isSelfName(name))
      throw new RelayError("REMOTE_RELAY_INVALID_INPUT", `"${name}" names this relay itself. ${tail}`);
    const url = checkRelayUrl(body.url);
    if (typeof body.token !== "string" || !body.token.trim())
      throw new RelayError(
        "REMOTE_RELAY_INVALID_INPUT",
        `token is the pairing token made on the other relay (POST /api/pairing-tokens there). ${tail}`,
      );
    // A token made on an https relay names its certificate: that one is pinned, self-signed or not.
    const pin = url.protocol === "https:" ? tokenPin(body.token) : null;
    let res: PeerResponse;
    try {
      res = await peerRequest(url.toString(), "POST", "/peer/v1/pair", {
        body: { token: body.token.trim(), name: this.relay.name },
        version: this.relay.version,
        name: this.relay.name,
        timeoutMs: 15_000,
        maxBytes: this.answerLimit(),
        pin,
      });
    } catch (err) {
      if (err instanceof PeerPinMismatch)
        throw new RelayError(
          "REMOTE_RELAY_AUTH",
          `Relay at ${url.origin} is not the one that made the pairing token: ${err.message}. The token was not sent. ${tail}`,
        );
      throw new RelayError(
        "REMOTE_RELAY_OFFLINE",
        `Relay at ${url.origin} did not answer (${(err as Error).message}). ${tail}`,
      );
    }
    if (res.status === 401 || res.status === 403)
      throw new RelayError(
        "REMOTE_RELAY_AUTH",
        `Relay at ${url.origin} refused the pairing token (unknown, used or expired): make a new one there. ${tail}`,
      );
    const paired = PairAnswer.safeParse(res.json);
    if (res.status !== 200 || !paired.success) {
      throw new RelayError(
        "REMOTE_RELAY_OFFLINE",
        `${url.origin} did not answer as an OAR relay (HTTP ${res.status}). ${tail}`,
      );
    }
    const answer = paired.data;
    this.credentials = null;
    this.store.addRelay({
      name,
      url: url.toString().replace(/\/+$/, ""),
      peerName: answer.name ?? name,
      credential: answer.credential,
      version: res.version ?? answer.version ?? "",
      certPin: pin,
    });
    this.relay.bus.emit({ type: "settings.updated" });
    this.link.changed();
    return this.store.relay(name)!;
  }

  setAgentsMay(name: string, level: unknown): RelayRow {
    const row = this.store.relay(name);
    if (!row)
      throw new RelayError("REMOTE_RELAY_NOT_FOUND", `No paired relay "${name.slice(0, 100)}". Nothing was changed.`);
    if (typeof level !== "string" || !(AGENTS_MAY as readonly string[]).includes(level)) {
      throw new RelayError(
        "REMOTE_RELAY_INVALID_INPUT",
        `agentsMay must be one of ${AGENTS_MAY.join(", ")}. Nothing was changed.`,
      );
    }
    this.store.setAgentsMay(row.name, level as AgentsMay);
    this.relay.bus.emit({ type: "settings.updated" });
    return this.store.relay(row.name)!;
  }

  /** DELETE /api/relays/:name: this relay's end of the pairing (either direction) goes, and
   * with it the subscriptions and questions on it. The relay this one paired with is told
   * (`reached`); one that does not answer is told when it does (unpair-tells.ts). A relay
   * that paired with this one learns it from the refusal of its next call. */
  async unpair(name: string): Promise<{ removed: string[]; reached?: boolean }> {
    const removed: string[] = [];
    let reached: boolean | undefined;
    const out = this.store.relay(name);
    if (out) {
      this.link.endRelay(out.name);
      // The tell is kept with the removal: a relay killed from here on makes it after its start.
      const tell = this.relay.db.transaction(() => {
        this.store.removeRelay(out.name);
        return this.tells.add(out);
      })();
      this.credentials = null;
      this.link.changed();
      reached = await this.tells.tellNow(tell);
      removed.push("outgoing");
    }
    const client = this.store.client(name);
    if (client) {
      this.endIncoming(client.name);
      removed.push("incoming");
    }
    if (!removed.length)
      throw new RelayError("REMOTE_RELAY_NOT_FOUND", `No paired relay "${name.slice(0, 100)}". Nothing was removed.`);
    this.relay.bus.emit({ type: "settings.updated" });
    return { removed, ...(reached === undefined ? {} : { reached }) };
  }

  /** Pairings under `name` (or only the one with that id) may call this relay no more: what
   * their conversations set up here ends. Each pairing owns what came through it; another
   * pairing under the same name keeps its own. */
  endIncoming(name: string, id?: string): void {
    const ended = id ? [this.store.clientById(id)].filter((c) => !!c) : this.store.clientsNamed(name);
    for (const client of ended) {
      this.store.removeClient(client.name, client.id);
      const callers = this.store.remoteCallersOf(client.id).map((r) => r.id);
      const watch = this.relay.watch;
      const subs = callers.flatMap((id) => watch.ofWatcher(id).map((s) => s.id));
      if (subs.length) watch.end(subs, "unpaired");
      endAsksBy(this.relay.db, callers, this.relay.clock.now());
      this.outbox.clear(client.id);
      this.standIns.forget(client.id);
    }
  }

  /** The pending asks that pairing's conversations keep here (their stand-ins asked them),
   * oldest first, each with the id of the asking conversation on its own relay. */
  clientAsks(client: ClientRow): (QuestionRow & { remote_asker: string })[] {
    const callers = new Map(this.store.remoteCallersOf(client.id).map((r) => [r.id, r.session_id]));
    return pendingAsksBy(this.relay.db, [...callers.keys()]).map((q) => ({
      ...q,
      remote_asker: callers.get(q.asked_by ?? "")!,
    }));
  }

  /** Was that question asked by one of that pairing's conversations? */
  askedThrough(client: ClientRow, q: Pick<QuestionRow, "asked_by">): boolean {
    return !!q.asked_by && this.store.remoteCallerById(q.asked_by)?.pairing === client.id;
  }

  // ---- finding and calling ----

  /** A paired relay by the name agents use, its own name, or its host. */
  find(name: string): RelayRow | undefined {
    const n = name.trim().toLowerCase();
    return this.store
      .relays()
      .find((r) => r.name.toLowerCase() === n || r.peer_name.toLowerCase() === n || hostOf(r.url) === n);
  }

  /** One peer request to a paired relay, its answer parsed with `answer`; OFFLINE when it does
   * not answer (or answers something else), AUTH when it refuses the credential. Records what
   * it presented (version, online). */
  async call<S extends z.ZodType>(
    row: RelayRow,
    method: "GET" | "POST",
    path: string,
    body: unknown,
    answer: S,
    opts: PeerCallOptions,
  ): Promise<z.output<S>> {
    const tail = opts.tail ?? "Nothing was done.";
    let res: PeerResponse;
    try {
      res = await peerRequest(row.url, method, path, {
        credential: row.credential,
        pin: row.cert_pin,
        body,
        version: this.relay.version,
        name: this.relay.name,
        timeoutMs: opts.timeoutMs,
        maxBytes: this.answerLimit(),
        signal: opts.signal,
      });
    } catch (err) {
      if (err instanceof PeerPinMismatch)
        throw new RelayError(
          "REMOTE_RELAY_AUTH",
          `Paired relay "${row.name}" (${row.url}) ${err.message}; nothing was sent to it. ${tail}`,
        );
      // It answered, but more than an answer may hold: refused, and it stays as online as it was.
      if (err instanceof PeerAnswerTooLarge)
        throw new RelayError(
          "REMOTE_RELAY_OFFLINE",
          `Paired relay "${row.name}" answered with more than ${err.limit} bytes; the answer was dropped. ${tail}`,
        );
      if (err instanceof PeerUnreachable && err.aborted)
        throw new RelayError("REMOTE_RELAY_OFFLINE", `The call to relay "${row.name}" was cancelled. ${tail}`);
      this.markOnline(row.name, null, false);
      throw new PeerOffline(
        `Paired relay "${row.name}" (${row.url}) is not answering (${(err as Error).message}). ${tail}`,
      );
    }
    if (res.status === 401) {
      this.markOnline(row.name, res.version, true);
      throw new RelayError(
        "REMOTE_RELAY_AUTH",
        `Paired relay "${row.name}" refused this relay's credential: the pairing was removed there. Pair again (Settings → Relays). ${tail}`,
      );
    }
    if (res.status >= 500 || !res.json || typeof res.json !== "object") {
      throw new RelayError(
        "REMOTE_RELAY_OFFLINE",
        `Paired relay "${row.name}" answered HTTP ${res.status} instead of a result. ${tail}`,
      );
    }
    this.markOnline(row.name, res.version, true);
    const parsed = answer.safeParse(res.json);
    if (!parsed.success)
      throw new RelayError("REMOTE_RELAY_OFFLINE", `Paired relay "${row.name}" answered without a result. ${tail}`);
    return parsed.data;
  }

  /** The most one peer answer may hold (peer-http.ts answerLimitBytes). */
  private answerLimit(): number {
    return answerLimitBytes(this.relay.settings.get().maxBodyMb);
  }

  /** When each relay's state was last written: a call that changes nothing writes nothing
   * more often than every 30 s (a write per call was a third of a remote send's cost). */
  private lastWrite = new Map<string, number>();

  markOnline(name: string, version: string | null, online: boolean): void {
    const before = this.store.relay(name);
    if (!before) return;
    const same = !!before.online === online && (!version || before.version === version);
    const now = this.relay.clock.now();
    if (same && now - (this.lastWrite.get(name) ?? -Infinity) < 30_000) return;
    this.lastWrite.set(name, now);
    this.store.seen(name, version, online);
    if (!!before.online !== online || (version && before.version !== version))
      this.relay.bus.emit({ type: "settings.updated" });
  }

  // ---- locking (seed §6) ----

  isUnlocked(sessionId: string, row: RelayRow): boolean {
    return this.store.unlocks(sessionId).some((u) => u.relay.toLowerCase() === row.name.toLowerCase());
  }

  /** The owner's message: every paired relay it mentions opens in the conversation. */
  ownerSaid(sessionId: string, text: string): string[] {
    const opened: string[] = [];
    for (const r of this.store.relays()) {
      if (mentions(text, namesOf(r)) && this.store.unlock(sessionId, r.name, "owner")) opened.push(r.name);
    }
    for (const r of this.store.relays()) {
      // A mention already recorded by an agent's write still counts as the owner's (hops).
      if (mentions(text, namesOf(r))) this.store.markOwnerUnlock(sessionId, r.name);
    }
    if (opened.length) this.relay.bus.emit({ type: "session.updated", sessionId });
    return opened;
  }

  /** An agent of relay `client` wrote into the conversation: that relay opens there, so the
   * agent here can answer (when this relay is paired with it). */
  agentWrote(sessionId: string, client: string): void {
    const c = client.toLowerCase();
    let any = false;
    for (const r of this.store.relays()) {
      if (r.peer_name.toLowerCase() === c || r.name.toLowerCase() === c)
        any = this.store.unlock(sessionId, r.name, "agent") || any;
    }
    if (any) this.relay.bus.emit({ type: "session.updated", sessionId });
  }

  /** Names under which the owner unlocked relays in the conversation (for hop checks there). */
  ownerUnlockedNames(sessionId: string): string[] {
    const owner = new Set(
      this.store
        .unlocks(sessionId)
        .filter((u) => u.via === "owner")
        .map((u) => u.relay.toLowerCase()),
    );
    return this.store
      .relays()
      .filter((r) => owner.has(r.name.toLowerCase()))
      .flatMap(namesOf);
  }

  /** The origin a prompt from this conversation carries (contract §5.5): the chain of the turn
   * it runs in, or this conversation as the start of a new chain. A stand-in runs no turn
   * here: a call it makes carries its chain itself (actions' `ctx.remote`). */
  originOf(caller: SessionRow): Origin {
    if (isRemoteCallerId(caller.id)) return { relays: [], ownerUnlocked: [] };
    const running = this.relay.sessions.activeTurns(caller.id).find((t) => t.status === "running");
    return parseOrigin(running?.origin_json) ?? { relays: [], ownerUnlocked: this.ownerUnlockedNames(caller.id) };
  }

  /** What a peer call says about the calling conversation besides the action (peer-protocol.ts
   * CallBody): who it is, the loop epoch, the subscriptions it holds elsewhere, the hop chain. */
  callerOf(caller: SessionRow, row: RelayRow): Omit<CallBody, "action" | "args"> {
    const origin = this.originOf(caller);
    return {
      caller: {
        session: caller.id,
        title: caller.title,
        model: caller.model,
        provider: caller.provider,
        effort: caller.effort,
        mode: caller.mode,
        cwd: caller.cwd,
        startedByAgent: !!caller.via_session,
        mayCreateSessions: !!caller.may_create_sessions,
        loopEpoch: lastOwnerMessageAt(this.relay.db, caller.id) ?? 0,
        // The 20-subscription limit spans relays: the other relay adds what it does not hold.
        heldElsewhere: this.relay.watch.held(caller.id, row.name),
      },
      origin: { relays: [...origin.relays, this.relay.name], ownerUnlocked: origin.ownerUnlocked },
      unlocked: this.store.unlocks(caller.id).flatMap((u) => {
        const r = this.store.relay(u.relay);
        return r ? namesOf(r) : [u.relay];
      }),
    };
  }

  /** After a call on that relay changed subscriptions there, the mirrors here follow (mirrors.ts). */
  mirrorAfter(
    row: RelayRow,
    caller: SessionRow,
    action: string,
    args: Record<string, unknown>,
    result: Record<string, unknown>,
  ): void {
    const { db, clock, bus, watch } = this.relay;
    mirrorAfter({ db, clock, bus, watch, poke: (name) => this.link.poke(name) }, row, caller, action, args, result);
  }

  /** Subscriptions the calling relay's owner ended there (Unsubscribe on a mirror) end here too. */
  endUnsubscribed(client: ClientRow["id"], ids: string[]): void {
    endUnsubscribed(this.relay, client, ids);
  }

  /** Where each of these subscriptions of that pairing's stand-ins stands: null while active, else why it ended. */
  subStates(client: ClientRow["id"], ids: string[]): Record<string, string | null> {
    return subStates(this.relay, client, ids);
  }

  /** The calling relay (that pairing) compacted conversations: their stand-ins here follow (compaction.ts). */
  applyMoves(client: ClientRow["id"], moves: { from: string; to: string }[]): void {
    applyMoves(this.relay, client, moves);
  }

  /** Title of a conversation on a paired relay that started a session here. */
  remoteTitle(id: string): string | null {
    return this.store.remoteTitle(id);
  }
}

export function hostOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^\[|\]$/g, "").toLowerCase();
  } catch {
    return "";
  }
}

export function namesOf(r: RelayRow): string[] {
  return [...new Set([r.name, r.peer_name, hostOf(r.url)].filter(Boolean))];
}

/** The certificate fingerprint a pairing token carries after its dot, or null. */
function tokenPin(token: string): string | null {
  const dot = token.trim().lastIndexOf(".");
  return dot < 0 ? null : normalizeFingerprint(token.trim().slice(dot + 1));
}
