// Nothing lost between a commit and its need's record (contract §10.3): a real relay process
// on the manual clock, delivering to a local webhook receiver, is SIGKILLed right after a
// budget card (or an 80 % notice) is committed and before its need is stored
// (OAR_TEST_CRASH_BEFORE_NEED, honoured only with --test-clock). The restart notifies it
// exactly once; a restart after it went out sends nothing again; one raised again inside
// quiet hours waits for their end like any other.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import Database from "better-sqlite3";
import { TestRelay } from "./helpers/relay-process.ts";
import { noonZone } from "./helpers/budget-kit.ts";
import { WebhookReceiver } from "./helpers/notify-receivers.ts";

const SECRET = "crash-hook-9b2e";
const TURN = (name: string) => `/usage 1000 500 0.40\n/reply ${name}`;
// About noon in the relay's zone: a restarted relay (its test clock starts again at the real
// time) is in the same budget period.
const { TZ } = noonZone();

const hooks: WebhookReceiver[] = [];
const relays: TestRelay[] = [];
after(async () => {
  for (const r of relays) await r.stop();
  for (const h of hooks) await h.close();
});

/** A relay that dies before recording a need whose key starts with `crashAt`, notifying `hook`,
 * with a $1 daily budget for the whole relay. */
async function crashingRelay(crashAt: string, extra: Record<string, unknown> = {}) {
  const hook = await WebhookReceiver.start(SECRET);
  hooks.push(hook);
  const relay = await TestRelay.start({ env: { TZ, OAR_TEST_CRASH_BEFORE_NEED: crashAt } });
  relays.push(relay);
  const r = await relay.api("PATCH", "/api/settings", {
    notify: { webhookUrl: hook.url, webhookSecret: SECRET, ...extra },
    budgets: [{ id: "daily", scope: "relay", period: "day", usd: 1 }],
  });
  assert.equal(r.status, 200, JSON.stringify(r.json));
  return { hook, relay };
}

/** Waits for the relay to have been killed by its crash switch, then starts it without it. */
async function restartAfterCrash(relay: TestRelay): Promise<void> {
  if (relay.proc.exitCode === null && relay.proc.signalCode === null)
    await new Promise((r) => relay.proc.once("exit", r));
  assert.equal(relay.proc.signalCode, "SIGKILL", relay.output.slice(-2000));
  relay.opts.env!.OAR_TEST_CRASH_BEFORE_NEED = undefined;
  await relay.restart();
}

/** Until the relay has recorded every delivery as ended: the receiver having it is not enough,
 * a kill before the relay records "sent" retries it after the restart (at least once, by design). */
async function recorded(relay: TestRelay): Promise<void> {
  const db = new Database(join(relay.dataDir, "oar.db"), { readonly: true });
  try {
    await relay.waitFor(async () => !db.prepare("SELECT 1 FROM notify_deliveries WHERE status = 'pending'").get());
  } finally {
    db.close();
  }
}

test("a budget card committed just before a kill is notified once after the restart; a later restart sends nothing again", {
  timeout: 240_000,
}, async () => {
  const { hook, relay } = await crashingRelay("card:");
  const s = await relay.createSession({ title: "Spender" });
  assert.equal((await relay.say(s, TURN("one"))).text, "one");
  assert.equal((await relay.say(s, TURN("two"))).text, "two");
  const [notice] = await hook.received(1);
  assert.equal(notice.json.type, "notice");
  assert.equal((await relay.say(s, TURN("three"))).text, "three");

  // $1.20 of $1.00: the next turn waits on a budget card; the relay dies as its need is raised.
  void relay.api("POST", `/api/sessions/${s}/messages`, { text: "/reply four" }).catch(() => null);
  await restartAfterCrash(relay);
  assert.equal(hook.events.length, 1, "the card was never notified before the kill");
  const [card] = (await relay.api("GET", `/api/cards?session=${s}`)).json.cards.filter(
    (c: any) => c.kind === "budget" && c.status === "pending",
  );
  assert.ok(card, "the budget card was committed and still waits");

  // Raised again at start-up; the gathering window after the notice may hold it up to 30 s.
  await relay.advance(30_000);
  const [, sent] = await hook.received(2);
  assert.equal(sent.signed, true);
  assert.equal(sent.json.type, "card", JSON.stringify(sent.json));
  assert.equal(sent.json.session, s);
  assert.match(sent.json.text, /Budget "daily" \(this relay, per day\) reached its limit/);

  // Killed again with the card still pending and its notification sent: nothing goes again,
  // neither the card nor the notice. A later notification (the owner's failed turn, once
  // the limit is raised) comes next.
  await recorded(relay);
  await relay.restart();
  await relay.advance(60_000);
  assert.equal(
    (
      await relay.api("PATCH", "/api/settings", {
        budgets: [{ id: "daily", scope: "relay", period: "day", usd: 100 }],
      })
    ).status,
    200,
  );
  const other = await relay.createSession({ title: "Marker" });
  await relay.say(other, "/error marker");
  const [, , marker] = await hook.received(3);
  assert.equal(marker.json.text, "marker");
  assert.deepEqual(
    hook.events.map((e) => e.json.type),
    ["notice", "card", "turn_error"],
  );
  assert.equal(new Set(hook.events.map((e) => e.notification)).size, 3);
});

test("an 80 % notice committed just before a kill inside quiet hours goes out once, when they end", {
  timeout: 240_000,
}, async () => {
  const start = new Date();
  const end = new Date(start.getTime() + 40 * 60_000);
  end.setUTCSeconds(0, 0);
  const hhmm = (d: Date) => d.toISOString().slice(11, 16);
  const { hook, relay } = await crashingRelay("notice:", {
    quietHours: { from: hhmm(start), to: hhmm(end), tz: "UTC" },
  });
  const s = await relay.createSession({ title: "Quiet spender" });
  assert.equal((await relay.say(s, TURN("one"))).text, "one");
  // Crossing 80 %: the notice is committed, the relay dies as its need is raised.
  void relay.say(s, TURN("two")).catch(() => null);
  await restartAfterCrash(relay);
  const [pending] = (await relay.api("GET", "/api/inbox")).json.notices;
  assert.equal(pending?.budget, "daily", "the notice was committed and waits in the Inbox");

  // Quiet: raised again at start-up, held like any other need.
  await relay.advance(10 * 60_000);
  assert.equal(hook.events.length, 0, "nothing inside quiet hours");
  await relay.setClock(end.toISOString());
  const [sent] = await hook.received(1);
  assert.equal(sent.json.type, "notice");
  assert.equal(sent.json.text, pending.text);
  assert.ok(Date.parse(sent.json.at) >= end.getTime(), sent.json.at);

  // Sent: a restart raises it again as a no-op.
  await recorded(relay);
  await relay.restart();
  await relay.setClock(new Date(end.getTime() + 60_000).toISOString());
  const other = await relay.createSession({ title: "Marker" });
  await relay.say(other, "/error marker");
  const [, marker] = await hook.received(2);
  assert.equal(marker.json.type, "turn_error");
  assert.equal(hook.events.length, 2);
});
