import { createHash, randomBytes } from "node:crypto";
import type { Db } from "../store/db.ts";
import type { Clock } from "../core/clock.ts";
import { newId } from "../core/ids.ts";
import type { AgentsMay } from "./levels.ts";

// Rows of the pairing domain (schema.ts). No rules here beyond what a row means.

export interface RelayRow {
  name: string;
  url: string;
  peer_name: string;
  credential: string;
  agents_may: AgentsMay;
  version: string | null;
  online: number;
  last_seen_at: number | null;
  event_cursor: number;
  link_lost_at: number | null;
  created_at: number;
  /** The SHA-256 fingerprint of the certificate pinned at pairing (https with a pinned token). */
  cert_pin?: string | null;
}

export interface ClientRow {
  id: string;
  name: string;
  credential_hash: string;
  label: string | null;
  version: string | null;
  last_seen_at: number | null;
  created_at: number;
}

export interface RemoteCallerRow {
  id: string;
  /** The pairing it came through (peer_clients.id): a peer is its pairing, not its name. */
  pairing: string;
  /** The name that relay gave itself, to show. */
  relay: string;
  session_id: string;
  title: string;
  model: string;
  loop_epoch: number;
  created_at: number;
}

export const hashSecret = (s: string): string => createHash("sha256").update(s).digest("hex");

/** A pairing token lives an hour and pairs once. */
export const TOKEN_TTL_MS = 60 * 60_000;

export class PairingStore {
  constructor(
    private db: Db,
    private clock: Clock,
  ) {}

  // ---- tokens (the relay that is paired with) ----

  /** On an https relay the token carries its certificate's fingerprint after a dot (64 hex
   * digits), for the relay that exchanges it to pin (contract §10.3); the whole token is the secret. */
  newToken(label: string | null, fingerprint?: string | null): string {
    const pin = fingerprint ? `.${fingerprint.replace(/:/g, "").toLowerCase()}` : "";
    const token = `oarp_${randomBytes(24).toString("base64url")}${pin}`;
    const now = this.clock.now();
    this.db
      .prepare("INSERT INTO pairing_tokens (token_hash, label, created_at, expires_at) VALUES (?, ?, ?, ?)")
      .run(hashSecret(token), label, now, now + TOKEN_TTL_MS);
    return token;
  }

  /** Uses a token once: its label, or null when unknown, used or expired. */
  useToken(token: string): { label: string | null } | null {
    const row = this.db.prepare("SELECT * FROM pairing_tokens WHERE token_hash = ?").get(hashSecret(token)) as
      | { label: string | null; expires_at: number; used_at: number | null }
      | undefined;
    if (!row || row.used_at || row.expires_at < this.clock.now()) return null;
    this.db
      .prepare("UPDATE pairing_tokens SET used_at = ? WHERE token_hash = ?")
      .run(this.clock.now(), hashSecret(token));
    return { label: row.label };
  }

  // ---- relays this one calls ----

  relays(): RelayRow[] {
    return this.db.prepare("SELECT * FROM relays ORDER BY created_at").all() as RelayRow[];
  }

  /** contract §5.1: a paired relay with Agents-may above off offers relay_tool too. */
  anyAllowed(): boolean {
    return this.relays().some((r) => r.agents_may !== "off");
  }

  relay(name: string): RelayRow | undefined {
    return this.db.prepare("SELECT * FROM relays WHERE name = ?").get(name) as RelayRow | undefined;
  }

  addRelay(r: {
    name: string;
    url: string;
    peerName: string;
    credential: string;
    version: string;
    certPin?: string | null;
  }): void {
    this.db
      .prepare(`INSERT INTO relays (name, url, peer_name, credential, version, online, last_seen_at, created_at, cert_pin)
      VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?)
      ON CONFLICT(name) DO UPDATE SET url = excluded.url, peer_name = excluded.peer_name, credential = excluded.credential,
        version = excluded.version, online = 1, last_seen_at = excluded.last_seen_at, event_cursor = 0, link_lost_at = NULL, cert_pin = excluded.cert_pin`)
      .run(r.name, r.url, r.peerName, r.credential, r.version, this.clock.now(), this.clock.now(), r.certPin ?? null);
  }

  setAgentsMay(name: string, level: AgentsMay): void {
    this.db.prepare("UPDATE relays SET agents_may = ? WHERE name = ?").run(level, name);
  }

  seen(name: string, version: string | null, online: boolean): void {
    this.db
      .prepare(
        "UPDATE relays SET online = ?, version = COALESCE(?, version), last_seen_at = CASE WHEN ? THEN ? ELSE last_seen_at END WHERE name = ?",
      )
      .run(online ? 1 : 0, version, online ? 1 : 0, this.clock.now(), name);
  }

  removeRelay(name: string): boolean {
    return this.db.prepare("DELETE FROM relays WHERE name = ?").run(name).changes > 0;
  }

  // ---- relays that call this one ----

  clients(): ClientRow[] {
    return this.db.prepare("SELECT * FROM peer_clients ORDER BY created_at").all() as ClientRow[];
  }

  clientByCredential(credential: string): ClientRow | undefined {
    return this.db.prepare("SELECT * FROM peer_clients WHERE credential_hash = ?").get(hashSecret(credential)) as
      | ClientRow
      | undefined;
  }

  client(name: string): ClientRow | undefined {
    return this.db.prepare("SELECT * FROM peer_clients WHERE name = ?").get(name) as ClientRow | undefined;
  }

  clientById(id: string): ClientRow | undefined {
    return this.db.prepare("SELECT * FROM peer_clients WHERE id = ?").get(id) as ClientRow | undefined;
  }

  /** Every pairing made under that name (one relay may pair more than once; two relays may share a name). */
  clientsNamed(name: string): ClientRow[] {
    return this.db.prepare("SELECT * FROM peer_clients WHERE name = ? ORDER BY created_at").all(name) as ClientRow[];
  }

  /** A new credential for a relay pairing with this one (each pairing its own). */
  addClient(name: string, label: string | null, version: string): string {
    const credential = `oarc_${randomBytes(32).toString("base64url")}`;
    this.db
      .prepare(
        "INSERT INTO peer_clients (id, name, credential_hash, label, version, last_seen_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
      )
      .run(newId("pcl"), name, hashSecret(credential), label, version, this.clock.now(), this.clock.now());
    return credential;
  }

  clientSeen(id: string, version: string | null): void {
    this.db
      .prepare("UPDATE peer_clients SET last_seen_at = ?, version = COALESCE(?, version) WHERE id = ?")
      .run(this.clock.now(), version, id);
  }

  /** Removes every pairing that relay made with this one, or only one credential's. */
  removeClient(name: string, id?: string): boolean {
    if (id) return this.db.prepare("DELETE FROM peer_clients WHERE id = ?").run(id).changes > 0;
    return this.db.prepare("DELETE FROM peer_clients WHERE name = ?").run(name).changes > 0;
  }

  // ---- unlocks ----

  unlock(sessionId: string, relay: string, via: "owner" | "agent"): boolean {
    return (
      this.db
        .prepare("INSERT OR IGNORE INTO relay_unlocks (session_id, relay, via, at) VALUES (?, ?, ?, ?)")
        .run(sessionId, relay, via, this.clock.now()).changes > 0
    );
  }

  /** The owner mentioned a relay an agent's write had unlocked already: it counts as the owner's (hops). */
  markOwnerUnlock(sessionId: string, relay: string): void {
    this.db.prepare("UPDATE relay_unlocks SET via = 'owner' WHERE session_id = ? AND relay = ?").run(sessionId, relay);
  }

  unlocks(sessionId: string): { relay: string; via: string }[] {
    return this.db.prepare("SELECT relay, via FROM relay_unlocks WHERE session_id = ?").all(sessionId) as {
      relay: string;
      via: string;
    }[];
  }

  // ---- remote callers ----

  /** The stand-in of that pairing's conversation, if it has one. */
  remoteCaller(pairing: string, sessionId: string): RemoteCallerRow | undefined {
    return this.db
      .prepare("SELECT * FROM remote_callers WHERE pairing = ? AND session_id = ?")
      .get(pairing, sessionId) as RemoteCallerRow | undefined;
  }

  addRemoteCaller(client: ClientRow, sessionId: string, title: string, model: string): RemoteCallerRow {
    const row: RemoteCallerRow = {
      id: newId("rmt"),
      pairing: client.id,
      relay: client.name,
      session_id: sessionId,
      title,
      model,
      loop_epoch: 0,
      created_at: this.clock.now(),
    };
    this.db
      .prepare(`INSERT INTO remote_callers (id, pairing, relay, session_id, title, model, loop_epoch, created_at)
      VALUES (@id, @pairing, @relay, @session_id, @title, @model, @loop_epoch, @created_at)`)
      .run(row);
    return row;
  }

  /** The caller's title and model as it sent them last (shown where the stand-in is named). */
  renameRemoteCaller(id: string, title: string, model: string): void {
    this.db.prepare("UPDATE remote_callers SET title = ?, model = ? WHERE id = ?").run(title, model, id);
  }

  removeRemoteCaller(id: string): void {
    this.db.prepare("DELETE FROM remote_callers WHERE id = ?").run(id);
  }

  remoteCallerById(id: string): RemoteCallerRow | undefined {
    return this.db.prepare("SELECT * FROM remote_callers WHERE id = ?").get(id) as RemoteCallerRow | undefined;
  }

  /** Title of a conversation on a paired relay that started a session here. */
  remoteTitle(id: string): string | null {
    if (!isRemoteCallerId(id)) return null;
    const r = this.remoteCallerById(id);
    return r ? `${r.title} (relay ${r.relay})` : null;
  }

  /** The stand-ins of one pairing, oldest first. */
  remoteCallersOf(pairing: string): RemoteCallerRow[] {
    return this.db
      .prepare("SELECT * FROM remote_callers WHERE pairing = ? ORDER BY created_at")
      .all(pairing) as RemoteCallerRow[];
  }

  countRemoteCallers(pairing: string): number {
    return (this.db.prepare("SELECT COUNT(*) AS n FROM remote_callers WHERE pairing = ?").get(pairing) as { n: number })
      .n;
  }

  setLoopEpoch(id: string, epoch: number): void {
    this.db.prepare("UPDATE remote_callers SET loop_epoch = ? WHERE id = ?").run(epoch, id);
  }
}

export const isRemoteCallerId = (id: string): boolean => id.startsWith("rmt_");
