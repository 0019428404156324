import { MINUTE } from "../core/clock.ts";
import { DueTimer } from "../core/due-timer.ts";
import { newId } from "../core/ids.ts";
import { answerLimitBytes, peerRequest } from "./peer-http.ts";
import type { PairingDeps } from "./deps.ts";
import type { RelayRow } from "./store.ts";

// Unpairing tells the other relay (POST /peer/v1/unpair with the old credential), so that it
// drops its end too: the credential refused there, what this relay's conversations set up
// there ended, their outbox gone. When it does not answer, the tell is kept in the store (the
// credential with it, a secret) and tried again on the relay clock — after 5 s, then twice as
// long each time up to 5 min, across restarts — until the other relay answers: it drops its
// end (200), or it no longer knows the credential (401: nothing is left to drop).

const FIRST_RETRY_MS = 5_000;
const MAX_RETRY_MS = 5 * MINUTE;
const TELL_TIMEOUT_MS = 5_000;

interface TellRow {
  id: string;
  name: string;
  url: string;
  credential: string;
  cert_pin?: string | null;
  created_at: number;
  attempts: number;
  next_at: number;
}

export class UnpairTells {
  private timer: DueTimer;
  private started = false;
  /** A round of tells is on its way: the timer is armed again when it is done. */
  private telling = false;

  constructor(private d: Pick<PairingDeps, "db" | "clock" | "name" | "version" | "settings">) {
    this.timer = new DueTimer(d.clock, () => void this.runDue());
  }

  start(): void {
    this.started = true;
    this.arm();
  }

  stop(): void {
    this.started = false;
    this.timer.stop();
  }

  /** Keeps a tell for the relay being unpaired (write it with the pairing row's removal). */
  add(r: RelayRow): string {
    const id = newId("unp");
    const now = this.d.clock.now();
    this.d.db
      .prepare(
        "INSERT INTO peer_unpair_tells (id, name, url, credential, created_at, attempts, next_at, cert_pin) VALUES (?, ?, ?, ?, ?, 0, ?, ?)",
      )
      .run(id, r.name, r.url, r.credential, now, now + FIRST_RETRY_MS, r.cert_pin ?? null);
    return id;
  }

  /** Credentials of tells still to make (masked like those of live pairings). */
  credentials(): string[] {
    return this.d.db.prepare("SELECT credential FROM peer_unpair_tells").pluck().all() as string[];
  }

  /** Tells the other relay now; true when it was reached (the kept tell is gone then). */
  async tellNow(id: string): Promise<boolean> {
    const row = this.d.db.prepare("SELECT * FROM peer_unpair_tells WHERE id = ?").get(id) as TellRow | undefined;
    if (!row) return true;
    const reached = await this.tell(row);
    this.settle(row, reached);
    return reached;
  }

  private async tell(row: TellRow): Promise<boolean> {
    try {
      const res = await peerRequest(row.url, "POST", "/peer/v1/unpair", {
        credential: row.credential,
        pin: row.cert_pin,
        body: {},
        version: this.d.version,
        name: this.d.name,
        timeoutMs: TELL_TIMEOUT_MS,
        maxBytes: answerLimitBytes(this.d.settings.get().maxBodyMb),
      });
      return res.status === 200 || res.status === 401;
    } catch {
      return false;
    }
  }

  private settle(row: TellRow, reached: boolean): void {
    if (!this.d.db.open) return;
    if (reached) {
      this.d.db.prepare("DELETE FROM peer_unpair_tells WHERE id = ?").run(row.id);
    } else {
      const attempts = row.attempts + 1;
      const next = this.d.clock.now() + Math.min(FIRST_RETRY_MS * 2 ** Math.min(attempts, 10), MAX_RETRY_MS);
      this.d.db
        .prepare("UPDATE peer_unpair_tells SET attempts = ?, next_at = ? WHERE id = ?")
        .run(attempts, next, row.id);
    }
    this.arm();
  }

  private async runDue(): Promise<void> {
    this.telling = true;
    try {
      const due = this.d.db
        .prepare("SELECT * FROM peer_unpair_tells WHERE next_at <= ?")
        .all(this.d.clock.now()) as TellRow[];
      await Promise.all(due.map(async (row) => this.settle(row, await this.tell(row))));
    } finally {
      this.telling = false;
      this.arm();
    }
  }

  /** One relay-clock timer for the earliest tell due. */
  private arm(): void {
    if (!this.started || this.telling || !this.d.db.open) return;
    this.timer.arm(
      (this.d.db.prepare("SELECT MIN(next_at) AS at FROM peer_unpair_tells").get() as { at: number | null }).at ??
        Infinity,
    );
  }
}
