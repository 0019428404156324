// The notification domain on its own: a real SQLite store in a temp folder, the manual clock,
// a `notify` setting the test changes, and the real sender. `restart()` opens the same store
// anew, as a relay started again would.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ManualClock } from "../../src/core/clock.ts";
import { cardNeed, type Need } from "../../src/notify/needs.ts";
import { buildNotify, type Notify } from "../../src/notify/notify.ts";
import type { Sender } from "../../src/notify/sender.ts";
import { DEFAULT_NOTIFY, type NotifySettings } from "../../src/core/notify-settings.ts";
import { openDb, type Db } from "../../src/store/db.ts";
import { PushService } from "./push-service.ts";

export const PAGE = "https://desk.example:7420/";

export class NotifyKit {
  settings: NotifySettings;
  readonly logs: string[] = [];
  db!: Db;
  clock!: ManualClock;
  notify!: Notify;

  constructor(
    readonly dir: string,
    settings: Partial<NotifySettings>,
    private send?: Sender,
  ) {
    this.settings = { ...DEFAULT_NOTIFY, ...settings };
  }

  static open(opts: { settings?: Partial<NotifySettings>; at?: number; send?: Sender } = {}): NotifyKit {
    const kit = new NotifyKit(mkdtempSync(join(tmpdir(), "oar-notify-")), opts.settings ?? {}, opts.send);
    kit.boot(opts.at ?? Date.now());
    return kit;
  }

  private boot(at: number): void {
    this.db = openDb(join(this.dir, "oar.db"));
    this.clock = new ManualClock(at);
    this.notify = buildNotify({
      db: this.db,
      clock: this.clock,
      settings: () => this.settings,
      relayName: () => "desk",
      pageUrl: () => PAGE,
      send: this.send,
      log: (line) => this.logs.push(line),
    });
    this.notify.notifier.start();
  }

  get notifier() {
    return this.notify.notifier;
  }

  /** Stops as a killed relay would (nothing in flight is waited for), then starts on the same store. */
  async restart(at: number): Promise<void> {
    this.notifier.close();
    this.db.close();
    this.boot(at);
  }

  set(patch: Partial<NotifySettings>): void {
    this.settings = { ...this.settings, ...patch };
    this.notifier.settingsChanged();
  }

  /** Moves the clock and lets what fell due finish its requests. */
  async advance(ms: number): Promise<void> {
    await this.clock.advance(ms);
    await this.notifier.idle();
  }

  count(sql: string, ...params: unknown[]): number {
    return (this.db.prepare(`SELECT COUNT(*) AS n FROM ${sql}`).get(...params) as { n: number }).n;
  }

  close(): void {
    this.notifier.close();
    this.db.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** An approval card as the approvals domain shows it (with phase B's `detail`). */
export function card(id: string, session: string, title: string, detail = `The text to send for ${id}`): Need {
  return cardNeed({ id, session, text: `Allow send on relay "desk" · session "${title}"? · Mode: ask`, detail }, title);
}

/** A kit and a local push service, both closed after `fn`. */
export async function withPush(
  fn: (h: { push: PushService; kit: NotifyKit }) => Promise<void>,
  at = Date.now(),
): Promise<void> {
  const push = await PushService.start();
  const kit = NotifyKit.open({ at });
  try {
    await fn({ push, kit });
  } finally {
    kit.close();
    await push.close();
  }
}
