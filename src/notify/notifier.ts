import type { Clock } from "../core/clock.ts";
import { DueTimer } from "../core/due-timer.ts";
import { newId } from "../core/ids.ts";
import type { Db } from "../store/db.ts";
import { QuietWindow } from "../watching/quiet-hours.ts";
import type { Channel, Outcome } from "./channel.ts";
import { compose, dueAt } from "./gathering.ts";
import type { Need } from "./needs.ts";
import { MAX_ATTEMPTS, retryWait } from "./retry.ts";
import { type NotifySettings, notifySecretValues } from "../core/notify-settings.ts";
import { type DeliveryRow, NotifyStore } from "./store.ts";

// The notification engine (contract §10.3). A need is recorded once by its key; the waiting
// ones go out together when due (gathering.ts), each notification with one delivery per
// channel target, committed in one transaction; deliveries are then sent and retried with
// backoff. Due times live in the store and one clock timer wakes for the earliest (as
// schedules do), so a restart loses nothing and sends nothing that was sent. Nothing here
// throws into the caller: a hook raising a need never fails because a receiver is down.

export interface NotifierDeps {
  db: Db;
  clock: Clock;
  settings: () => NotifySettings;
  /** The page's address (e.g. https://host:7420/); notifications link into it. */
  pageUrl: () => string;
  channels: Channel[];
  log?: (line: string) => void;
}

export class Notifier {
  readonly store: NotifyStore;
  private timer: DueTimer;
  private running = false;
  private again = false;
  private closed = false;
  private inFlight = new Map<number, Promise<void>>();
  private quiet: { key: string; window: QuietWindow | null } = { key: "null", window: null };
  private log: (line: string) => void;

  constructor(private d: NotifierDeps) {
    this.store = new NotifyStore(d.db);
    this.timer = new DueTimer(d.clock, () => this.runDue());
    this.log = d.log ?? ((line) => console.error(line));
  }

  /** At start-up: what fell due while the relay was down goes out now (once), then arm. */
  start(): void {
    this.runDue();
  }

  /** Something needs the owner. False when it is not notified: seen before, a finished turn
   * without `turnsDone`, or no channel to send to. */
  raise(need: Need): boolean {
    try {
      const s = this.d.settings();
      if (need.kind === "turn_done" && !s.turnsDone) return false;
      if (!this.d.channels.some((c) => c.targets(s).length)) return false;
      if (!this.store.insertItem(need, this.d.clock.now())) return false;
      this.runDue();
      return true;
    } catch (err) {
      this.log(`[notify] recording ${need.key} failed: ${this.words(err)}`);
      return false;
    }
  }

  /** It was decided, expired or answered: not notified if it has not gone out yet, and a
   * delivery still to be retried for it alone is dropped. */
  settle(key: string): void {
    try {
      if (this.store.settle(key, this.d.clock.now())) this.arm();
    } catch (err) {
      this.log(`[notify] settling ${key} failed: ${this.words(err)}`);
    }
  }

  /** The `notify` setting changed: quiet hours may have moved or ended. */
  settingsChanged(): void {
    this.runDue();
  }

  /** Resolves once no delivery is in flight (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.inFlight.size) await Promise.allSettled([...this.inFlight.values()]);
  }

  close(): void {
    this.closed = true;
    this.timer.stop();
  }

  private runDue(): void {
    if (this.closed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    try {
      do {
        this.again = false;
        const now = this.d.clock.now();
        this.fire(now);
        for (const row of this.store.dueDeliveries(now)) this.attempt(row, now);
      } while (this.again);
    } catch (err) {
      this.log(`[notify] ${this.words(err)}`);
    } finally {
      this.running = false;
    }
    this.arm();
  }

  /** The waiting needs, when due, become one notification with its deliveries. */
  private fire(now: number): void {
    const first = this.store.firstWaitingAt();
    if (first == null || dueAt(first, this.store.lastSentAt(), this.quietWindow()) > now) return;
    const s = this.d.settings();
    this.d.db.transaction(() => {
      const items = this.store.waiting(now);
      if (!items.length) return;
      const id = newId("ntf");
      this.store.insertNotification(
        id,
        compose(items, this.d.pageUrl()),
        items.map((i) => i.key),
        now,
      );
      for (const c of this.d.channels) for (const t of c.targets(s)) this.store.addDelivery(id, c.name, t, now);
    })();
    this.store.prune(now);
  }

  private attempt(row: DeliveryRow, now: number): void {
    if (this.inFlight.has(row.id)) return;
    const channel = this.d.channels.find((c) => c.name === row.channel);
    const n = this.store.notification(row.notification_id);
    const over =
      !channel || !n ? "nothing to send it with" : this.store.allSettled(n.id) ? "it no longer needs the owner" : null;
    if (over || !channel || !n) {
      this.store.endDelivery(row.id, "dropped", over, now);
      return;
    }
    // Six attempts made (the last cut short by a crash): given up.
    if (row.attempts >= MAX_ATTEMPTS) {
      this.store.endDelivery(row.id, "failed", row.last_error, now);
      return;
    }
    const attempts = row.attempts + 1;
    this.store.lease(row.id, attempts, now + retryWait(attempts));
    const sent = (async () => {
      let out: Outcome;
      try {
        out = await channel.send(n, row.target);
      } catch (err) {
        out = { kind: "retry", why: this.words(err) };
      }
      this.record(row, attempts, out);
    })()
      .catch((err) => this.log(`[notify] ${this.words(err)}`))
      .finally(() => {
        this.inFlight.delete(row.id);
        this.arm();
      });
    this.inFlight.set(row.id, sent);
  }

  private record(row: DeliveryRow, attempts: number, out: Outcome): void {
    const now = this.d.clock.now();
    const what = `[notify] ${row.channel} delivery of ${row.notification_id}`;
    if (out.kind === "sent") {
      this.store.endDelivery(row.id, "sent", null, now);
      return;
    }
    const why = this.mask(out.why);
    if (out.kind === "retry" && attempts < MAX_ATTEMPTS) {
      this.store.retryAt(row.id, now + Math.max(retryWait(attempts), out.afterMs ?? 0), why);
      return;
    }
    const status = out.kind === "dropped" ? "dropped" : "failed";
    this.store.endDelivery(row.id, status, why, now);
    if (status === "failed") this.log(`${what} failed after ${attempts} attempt${attempts > 1 ? "s" : ""}: ${why}`);
  }

  /** One clock timer for the earliest due time: waiting needs or a delivery's next attempt. */
  private arm(): void {
    if (this.closed) return;
    let earliest = Infinity;
    try {
      const first = this.store.firstWaitingAt();
      if (first != null) earliest = dueAt(first, this.store.lastSentAt(), this.quietWindow());
      earliest = Math.min(earliest, this.store.nextDeliveryDue([...this.inFlight.keys()]) ?? Infinity);
    } catch (err) {
      this.log(`[notify] ${this.words(err)}`);
    }
    this.timer.arm(earliest);
  }

  private quietWindow(): QuietWindow | null {
    const q = this.d.settings().quietHours;
    const key = JSON.stringify(q);
    if (key !== this.quiet.key) this.quiet = { key, window: q ? new QuietWindow(q) : null };
    return this.quiet.window;
  }

  /** An error in words, with the notify secrets (an ntfy topic in an address) masked. */
  private words(err: unknown): string {
    const e = err as { code?: string; message?: string };
    return this.mask(String(e?.code ?? e?.message ?? err).slice(0, 300));
  }

  private mask(text: string): string {
    let out = text;
    for (const secret of notifySecretValues(this.d.settings())) out = out.split(secret).join("****");
    return out;
  }
}
