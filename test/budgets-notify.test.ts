// A budget's 80 % notice is a notification too (contract §10.4, through §10.3's channels):
// a real relay on the manual clock with a webhook receiver. Crossing 80 % sends one
// notification with the budget's words; further turns of the same period, a restart and a
// changed setting (which looks at every budget again) send nothing more; the next day (the
// relay's zone, where it is about noon now so a restarted relay is on the same day) may
// notify again. A held turn's budget card reaches Web Push with its options, and the
// notification's action token decides it as the card in the page does.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { TestRelay } from "./helpers/relay-process.ts";
import { noonZone } from "./helpers/budget-kit.ts";
import { WebhookReceiver } from "./helpers/notify-receivers.ts";
import { cardAct, PushService } from "./helpers/push-service.ts";

const SECRET = "budget-hook-3c1d";
const TURN = (name: string) => `/usage 1000 500 0.40\n/reply ${name}`;
const { TZ, MIDNIGHT } = noonZone();

let relay: TestRelay;
let hook: WebhookReceiver;
let push: PushService;
before(async () => {
  hook = await WebhookReceiver.start(SECRET);
  push = await PushService.start();
  relay = await TestRelay.start({ env: { TZ } });
  const r = await relay.api("PATCH", "/api/settings", {
    notify: { webhookUrl: hook.url, webhookSecret: SECRET },
    budgets: [{ id: "daily", scope: "relay", period: "day", usd: 1 }],
  });
  assert.equal(r.status, 200, JSON.stringify(r.json));
});
after(async () => {
  await relay.stop();
  await hook.close();
  await push.close();
});

test("crossing 80 % notifies once per budget and period, not again after a restart; the next day may notify again", {
  timeout: 180_000,
}, async () => {
  const s = await relay.createSession({ title: "Spender" });
  assert.equal((await relay.say(s, TURN("one"))).text, "one");
  assert.equal((await relay.say(s, TURN("two"))).text, "two");

  const [first] = await hook.received(1);
  assert.equal(first.signed, true);
  assert.equal(first.json.type, "notice");
  assert.equal(first.json.relay, "desk");
  assert.equal(first.json.session, null);
  assert.equal(first.json.title, 'Budget "daily" passed 80 %');
  assert.match(
    first.json.text,
    /^Budget "daily" \(this relay, per day\): \$0\.80 of \$1\.00 spent today \(80 %\)\. At the limit, new turns under it wait for you/,
  );
  assert.match(first.json.url, /#inbox$/, "it links to the Inbox, where the notice is");
  const [notice] = (await relay.api("GET", "/api/inbox")).json.notices;
  assert.equal(notice.text, first.json.text, "the Inbox's words");

  // The same period: a third turn (to $1.20), a restart, a setting change (a sweep of every
  // budget) and the gathering window's end send nothing more.
  assert.equal((await relay.say(s, TURN("three"))).text, "three");
  await relay.restart();
  assert.equal(
    (
      await relay.api("PATCH", "/api/settings", {
        budgets: [
          { id: "daily", scope: "relay", period: "day", usd: 1 },
          { id: "monthly", scope: "relay", period: "month", usd: 100 },
        ],
      })
    ).status,
    200,
  );
  await relay.advance(60_000);

  // The next day: spend starts from 0; crossing 80 % again is a new notice and notification.
  await relay.setClock(new Date(MIDNIGHT + 60_000).toISOString());
  assert.equal((await relay.say(s, TURN("four"))).text, "four");
  assert.equal((await relay.say(s, TURN("five"))).text, "five");
  const [, second] = await hook.received(2);
  assert.equal(second.json.type, "notice", "one notice on its own, nothing gathered with it");
  assert.match(second.json.text, /^Budget "daily" \(this relay, per day\): \$0\.80 of \$1\.00 spent today \(80 %\)/);
  assert.notEqual(second.notification, first.notification);
  await relay.advance(60_000);
  assert.equal(hook.events.length, 2, "one notification per period");
});

const act = (cardId: string, body: Record<string, unknown>) => cardAct(relay.url, cardId, body);

test("a budget card's notification acts on it as its card does: Allow once runs the held turn; a bare allow is refused", {
  timeout: 180_000,
}, async () => {
  assert.equal((await relay.api("POST", "/api/push/subscriptions", push.subscribe())).status, 201);
  const s = await relay.createSession({ title: "Held" });
  const agent = await relay.mcp(await relay.createSession({ title: "Watcher" }));
  // Today $0.80 of $1.00 is spent already: this turn takes it past the limit, the next waits.
  assert.equal((await relay.say(s, TURN("six"))).text, "six");
  const m = (await relay.api("POST", `/api/sessions/${s}/messages`, { text: "/reply seven" })).json.message_id;
  const card = await relay.waitFor(async () =>
    (await relay.api("GET", `/api/cards?session=${s}`)).json.cards.find((c: any) => c.kind === "budget"),
  );
  const msg = await push.pushFor(card.id);
  assert.deepEqual(
    msg.payload.card.options.map((o: any) => o.id),
    ["allow_once", "stop"],
    "raise needs an amount: the page, not a button",
  );
  assert.match(msg.payload.body, /Budget "daily" \(this relay, per day\) reached its limit/);
  const token = msg.payload.card.actionToken;
  const wait = () => agent.call({ action: "wait", relay: "this", session: s, message_id: m, wait_seconds: 0 });

  // A bare allow would settle the card and leave its turn held with nobody asked: refused,
  // the card still pending, its token still good.
  const bare = await act(card.id, { actionToken: token, decision: "allow" });
  assert.equal(bare.status, 400, JSON.stringify(bare.json));
  assert.equal(bare.json.code, "REMOTE_RELAY_INVALID_INPUT");
  assert.match(bare.json.error, /raise.*allow_once.*stop/);
  assert.equal((await wait()).heldForBudget?.budget, "daily");
  // Raise needs an amount a notification's button cannot give: refused the same way.
  assert.equal((await act(card.id, { actionToken: token, optionId: "raise" })).json.code, "REMOTE_RELAY_INVALID_INPUT");

  const allowed = await act(card.id, { actionToken: token, optionId: "allow_once" });
  assert.equal(allowed.status, 200, JSON.stringify(allowed.json));
  assert.equal(allowed.json.status, "allowed");
  const done = await relay.waitFor(async () => {
    const r = await wait();
    return r.status === "done" && r;
  });
  assert.equal(done.reply.text, "seven");
  assert.equal((await act(card.id, { actionToken: token, optionId: "stop" })).status >= 400, true, "used once");
});

test("a notice dismissed in the Inbox before its notification went out (quiet hours) is not notified", {
  timeout: 180_000,
}, async () => {
  const kept = await relay.createSession({ title: "Kept" });
  const dismissed = await relay.createSession({ title: "Dismissed" });
  const budgets = [
    { id: "keep", scope: "session", target: kept, period: "day", usd: 1 },
    { id: "drop", scope: "session", target: dismissed, period: "day", usd: 1 },
  ];
  assert.equal((await relay.api("PATCH", "/api/settings", { budgets })).status, 200);
  const start = new Date(await relay.advance(60_000));
  const end = new Date(start.getTime() + 30 * 60_000);
  end.setUTCSeconds(0, 0);
  const hhmm = (d: Date) => d.toISOString().slice(11, 16);
  const quiet = { from: hhmm(start), to: hhmm(end), tz: "UTC" };
  assert.equal((await relay.api("PATCH", "/api/settings", { notify: { quietHours: quiet } })).status, 200);
  const sent = push.messages.length + hook.events.length;

  for (const s of [dismissed, kept]) {
    assert.equal((await relay.say(s, TURN("a"))).text, "a");
    assert.equal((await relay.say(s, TURN("b"))).text, "b");
  }
  const notices = (await relay.api("GET", "/api/inbox")).json.notices;
  const drop = notices.find((n: any) => n.budget === "drop");
  assert.equal((await relay.api("POST", `/api/questions/${drop.id}`, { dismiss: true })).status, 200);
  assert.equal(push.messages.length + hook.events.length, sent, "quiet: nothing went out");

  // The quiet hours end: only the notice still pending goes out, on its own.
  const before = hook.events.length;
  await relay.advance(31 * 60_000);
  const hooks = await hook.received(before + 1);
  const last = hooks[hooks.length - 1];
  assert.equal(last.json.type, "notice", JSON.stringify(last.json));
  assert.equal(last.json.title, 'Budget "keep" passed 80 %');
  assert.equal(last.json.session, kept, "a session's budget: that session");
  assert.match(last.json.text, /Budget "keep" \(session "Kept", per day\)/);
  assert.equal((await relay.api("PATCH", "/api/settings", { notify: { quietHours: null } })).status, 200);
});
