import { RelayError } from "../core/errors.ts";
import type { Db } from "../store/db.ts";
import type { ClientRow, PairingStore, RemoteCallerRow } from "./store.ts";

// Stand-ins (remote_callers, ARCHITECTURE.md "Paired relays"): the caller every rule here
// counts for when a conversation on a paired relay calls. They belong to the pairing the call
// came through, and one pairing holds at most 100 (issue 18: 400 invented callers once made
// 400 stand-ins). A stand-in is made by the first call that goes through, not by a refused
// one; when a pairing is full, the oldest stand-in that holds nothing here any more makes room.

export const MAX_STAND_INS = 100;

export class StandIns {
  /** Calls running per stand-in: a stand-in in use is never removed. */
  private running = new Map<string, number>();
  /** Stand-ins made by a call still running, with no call gone through yet. */
  private unconfirmed = new Set<string>();

  constructor(
    private db: Db,
    private store: PairingStore,
  ) {}

  /** The stand-in for this call (made when that conversation has none); `leave` when it ends. */
  enter(client: ClientRow, caller: { session: string; title: string; model: string }, tail: string): RemoteCallerRow {
    let row = this.store.remoteCaller(client.id, caller.session);
    if (row) {
      if (row.title !== caller.title || row.model !== caller.model)
        this.store.renameRemoteCaller(row.id, caller.title, caller.model);
      row = { ...row, title: caller.title, model: caller.model };
    } else {
      if (this.store.countRemoteCallers(client.id) >= MAX_STAND_INS && !this.makeRoom(client.id)) {
        throw new RelayError(
          "REMOTE_RELAY_LIMIT",
          `Relay "${client.name}" already has ${MAX_STAND_INS} conversations working here (they started sessions that are not archived, watch, or ask questions here); a new conversation of that relay can act here once one of them is done. ${tail}`,
        );
      }
      row = this.store.addRemoteCaller(client, caller.session, caller.title, caller.model);
      this.unconfirmed.add(row.id);
    }
    this.running.set(row.id, (this.running.get(row.id) ?? 0) + 1);
    return row;
  }

  /** The call ended: a stand-in made for calls that were all refused goes again. */
  leave(row: RemoteCallerRow, refused: boolean): void {
    const left = (this.running.get(row.id) ?? 1) - 1;
    if (left > 0) this.running.set(row.id, left);
    else this.running.delete(row.id);
    if (!refused) this.unconfirmed.delete(row.id);
    else if (left === 0 && this.unconfirmed.delete(row.id) && !this.holds(row.id)) this.remove(row.id);
  }

  /** The calling conversation's owner wrote there since the stand-in's last call (`epoch`, the
   * caller's loopEpoch): its loop count here starts again, with the epoch, in one transaction. */
  ownerSpoke(row: RemoteCallerRow, epoch: number, resetLoop: (id: string) => void): void {
    if (epoch <= row.loop_epoch) return;
    this.db.transaction(() => {
      resetLoop(row.id);
      this.store.setLoopEpoch(row.id, epoch);
    })();
  }

  /** The pairing is gone: its stand-ins that hold nothing go too (those that started sessions
   * still here stay, to name their starter). */
  forget(pairing: string): void {
    for (const r of this.store.remoteCallersOf(pairing))
      if (!this.running.has(r.id) && !this.holds(r.id)) this.remove(r.id);
  }

  /** Removes the oldest stand-in of that pairing that holds nothing here; false when none does. */
  private makeRoom(pairing: string): boolean {
    const idle = this.store.remoteCallersOf(pairing).find((r) => !this.running.has(r.id) && !this.holds(r.id));
    if (idle) this.remove(idle.id);
    return !!idle;
  }

  /** Does anything here still need this stand-in (the rules count for it, or events go to it)? */
  private holds(id: string): boolean {
    const q = (sql: string) => !!this.db.prepare(sql).get(id);
    return (
      q("SELECT 1 FROM subscriptions WHERE watcher = ? AND ended_at IS NULL") ||
      q("SELECT 1 FROM peer_outbox WHERE watcher = ?") ||
      q("SELECT 1 FROM questions WHERE asked_by = ? AND status = 'pending'") ||
      q("SELECT 1 FROM sessions WHERE via_session = ? AND archived_at IS NULL AND deleted_at IS NULL") ||
      q("SELECT 1 FROM turns WHERE status IN ('queued', 'running') AND from_session = ?") ||
      q("SELECT 1 FROM schedules WHERE set_by = ? AND ended_at IS NULL")
    );
  }

  /** Its grants and loop count go with it: the calling relay's owner is asked again. */
  private remove(id: string): void {
    this.db.transaction(() => {
      this.store.removeRemoteCaller(id);
      this.db.prepare("DELETE FROM grants WHERE session_id = ?").run(id);
    })();
  }
}
