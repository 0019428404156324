// The notification engine (contract §10.3) on the manual clock, delivering over real HTTP
// into a local webhook receiver: the first need at once, what follows within 30 s as one,
// quiet hours held until they end, never twice, a need settled before it is due not sent,
// state kept across a restart, failed deliveries retried with bounded backoff.
import { test } from "node:test";
import assert from "node:assert/strict";
import { card, NotifyKit, PAGE } from "./helpers/notify-kit.ts";
import { WebhookReceiver } from "./helpers/notify-receivers.ts";
import { questionNeed, turnNeed } from "../src/notify/needs.ts";

const T0 = Date.parse("2026-03-02T12:00:00.000Z");
const SECRET = "hook-secret-5f1c";

/** A kit delivering to a signed webhook receiver, both closed after `fn`. */
async function withHook(fn: (h: { hook: WebhookReceiver; kit: NotifyKit }) => Promise<void>, at = T0): Promise<void> {
  const hook = await WebhookReceiver.start(SECRET);
  const kit = NotifyKit.open({ at, settings: { webPush: false, webhookUrl: hook.url, webhookSecret: SECRET } });
  try {
    await fn({ hook, kit });
  } finally {
    kit.close();
    await hook.close();
  }
}

test("the first need goes out at once; the two raised within 30 s go out as one notification at its end", () =>
  withHook(async ({ hook, kit }) => {
    assert.equal(kit.notifier.raise(card("card_a", "ses_1", "Demo one", "rm -rf everything please")), true);
    const [first] = await hook.received(1);
    assert.deepEqual(first.json, {
      type: "card",
      relay: "desk",
      session: "ses_1",
      title: 'Allow send on relay "desk" · session "Demo one"? · Mode: ask',
      text: "rm -rf everything please",
      url: `${PAGE}#session=ses_1`,
      at: new Date(T0).toISOString(),
    });
    assert.equal(first.signed, true);

    await kit.advance(5_000);
    kit.notifier.raise(card("card_b", "ses_2", "Review"));
    await kit.advance(5_000);
    kit.notifier.raise(
      questionNeed(
        { id: "ask_c", session_id: "ses_3", question: "Which branch?", options_json: '["main","dev"]' },
        "Deploy",
      ),
    );
    await kit.advance(19_999);
    assert.equal(hook.http.requests.length, 1, "nothing more before the 30 s are over");
    assert.equal(kit.count("notify_items WHERE status = 'waiting'"), 2);

    await kit.advance(1);
    const [, gathered] = await hook.received(2);
    assert.equal(gathered.json.type, "gathered");
    assert.equal(gathered.json.title, "2 sessions need you");
    assert.equal(
      gathered.json.text,
      '• Allow send on relay "desk" · session "Review"? · Mode: ask\n• "Deploy" asks you',
    );
    assert.equal(gathered.json.url, `${PAGE}#inbox`);
    assert.equal(gathered.json.at, new Date(T0 + 30_000).toISOString());
    assert.equal(gathered.signed, true);
    // A need raised later than 30 s after the last notification goes out at once again.
    await kit.advance(60_000);
    kit.notifier.raise(card("card_d", "ses_1", "Demo one"));
    const [, , third] = await hook.received(3);
    assert.equal(third.json.type, "card");
  }));

test("a need is notified once: raised again, or again after it went out, nothing more is sent", () =>
  withHook(async ({ hook, kit }) => {
    assert.equal(kit.notifier.raise(card("card_a", "ses_1", "Demo")), true);
    await hook.received(1);
    assert.equal(kit.notifier.raise(card("card_a", "ses_1", "Demo")), false);
    await kit.advance(45_000);
    assert.equal(kit.notifier.raise(card("card_a", "ses_1", "Demo")), false);
    await kit.advance(3_600_000);
    assert.equal(hook.http.requests.length, 1);
    assert.equal(kit.count("notify_notifications"), 1);
  }));

test("a sent need still open keeps its key past the week's pruning (start-up raises what waits again); a settled one goes", () =>
  withHook(async ({ hook, kit }) => {
    // A budget card can wait for weeks; the restart raises every pending card again.
    assert.equal(kit.notifier.raise(card("card_old", "ses_1", "Held")), true);
    assert.equal(kit.notifier.raise(card("card_done", "ses_2", "Decided")), true);
    await kit.advance(30_000);
    await hook.received(2);
    kit.notifier.settle("card:card_done");
    await kit.advance(8 * 24 * 3_600_000);
    // A notification going out prunes what is a week old.
    assert.equal(kit.notifier.raise(card("card_new", "ses_3", "New")), true);
    await hook.received(3);
    assert.equal(kit.count("notify_items WHERE key = 'card:card_done'"), 0, "settled and old: gone");
    assert.equal(kit.notifier.raise(card("card_old", "ses_1", "Held")), false, "still known: not sent again");
    await kit.advance(3_600_000);
    assert.equal(hook.http.requests.length, 3);
  }));

test("a card decided or expired before its notification is due is not notified", () =>
  withHook(async ({ hook, kit }) => {
    kit.notifier.raise(card("card_a", "ses_1", "Demo"));
    await hook.received(1);
    await kit.advance(5_000);
    kit.notifier.raise(card("card_b", "ses_2", "Other"));
    kit.notifier.raise(card("card_c", "ses_3", "Third"));
    await kit.advance(5_000);
    kit.notifier.settle("card:card_b"); // decided
    kit.notifier.settle("card:card_c"); // expired
    await kit.advance(60_000);
    assert.equal(hook.http.requests.length, 1);
    assert.equal(kit.count("notify_items WHERE status = 'settled'"), 2);
    // One of two settled: the other goes out alone, as itself.
    kit.notifier.raise(card("card_d", "ses_2", "Other"));
    kit.notifier.raise(card("card_e", "ses_3", "Third"));
    const [, d] = await hook.received(2);
    assert.equal(d.json.title, 'Allow send on relay "desk" · session "Other"? · Mode: ask');
    await kit.advance(10_000);
    kit.notifier.settle("card:card_e");
    kit.notifier.raise(card("card_f", "ses_4", "Fourth"));
    await kit.advance(20_000);
    const [, , f] = await hook.received(3);
    assert.equal(f.json.type, "card");
    assert.equal(f.json.session, "ses_4");
  }));

test("inside quiet hours everything waits for their end, then goes out as one", async () => {
  const at = Date.parse("2026-03-02T23:00:00.000Z");
  await withHook(async ({ hook, kit }) => {
    kit.set({ quietHours: { from: "22:00", to: "07:00", tz: "Europe/Berlin" } }); // 23:00 UTC is 00:00 in Berlin
    kit.notifier.raise(card("card_a", "ses_1", "Demo"));
    await kit.advance(10 * 60_000);
    kit.notifier.raise(card("card_b", "ses_2", "Other"));
    await kit.advance(2 * 3_600_000);
    kit.notifier.raise(
      turnNeed(
        { turnId: "turn_c", sessionId: "ses_3", status: "error", byOwner: true, error: "Invalid API key" },
        "Build",
        false,
      )!,
    );
    // 07:00 in Berlin (winter, UTC+1) is 06:00 UTC.
    const end = Date.parse("2026-03-03T06:00:00.000Z");
    await kit.advance(end - 1 - kit.clock.now());
    assert.equal(hook.http.requests.length, 0, "nothing inside quiet hours");
    await kit.advance(1);
    const [one] = await hook.received(1);
    assert.equal(one.json.title, "3 sessions need you");
    assert.equal(one.json.at, new Date(end).toISOString());
    assert.match(one.json.text, /"Build": the turn failed/);
    // Quiet hours changed to none: a need waiting for them goes at once.
    await kit.advance(12 * 3_600_000 + 3_600_000); // 19:00 UTC = 20:00 Berlin
    kit.set({ quietHours: { from: "19:30", to: "21:00", tz: "Europe/Berlin" } });
    kit.notifier.raise(card("card_d", "ses_1", "Demo"));
    await kit.notifier.idle();
    assert.equal(hook.http.requests.length, 1);
    kit.set({ quietHours: null });
    await hook.received(2);
  }, at);
});

test("what needs the owner: an owner's turn failing, finishing only with turnsDone; an agent's turn never", () =>
  withHook(async ({ hook, kit }) => {
    assert.equal(
      turnNeed({ turnId: "t1", sessionId: "ses_1", status: "error", byOwner: false, error: "x" }, "Demo", true),
      null,
    );
    assert.equal(turnNeed({ turnId: "t2", sessionId: "ses_1", status: "stopped", byOwner: true }, "Demo", true), null);
    assert.equal(
      turnNeed({ turnId: "t3", sessionId: "ses_1", status: "done", byOwner: true, reply: "All green" }, "Demo", false),
      null,
    );
    const finished = turnNeed(
      { turnId: "t4", sessionId: "ses_1", status: "done", byOwner: true, reply: "All green" },
      "Demo",
      true,
    )!;
    assert.equal(kit.notifier.raise(finished), false, "turnsDone is off in the setting");
    kit.set({ turnsDone: true });
    assert.equal(kit.notifier.raise(finished), true);
    const [e] = await hook.received(1);
    assert.deepEqual([e.json.type, e.json.title, e.json.text], ["turn_done", '"Demo" finished', "All green"]);
  }));

test("a restart keeps what waits and what is to be retried: nothing sent twice, nothing lost", () =>
  withHook(async ({ hook, kit }) => {
    kit.notifier.raise(card("card_a", "ses_1", "Demo"));
    await hook.received(1);
    await kit.advance(5_000);
    kit.notifier.raise(card("card_b", "ses_2", "Other"));
    // Killed 10 s in; started again at 12 s: card_b still waits for the 30 s mark.
    await kit.restart(T0 + 12_000);
    await kit.notifier.idle();
    assert.equal(hook.http.requests.length, 1, "card_a is not sent again");
    await kit.advance(17_999);
    assert.equal(hook.http.requests.length, 1);
    await kit.advance(1);
    const [, b] = await hook.received(2);
    assert.equal(b.json.title, 'Allow send on relay "desk" · session "Other"? · Mode: ask');

    // A delivery failing when the relay stops is tried again after the start.
    hook.http.answer = () => ({ status: 503 });
    await kit.advance(60_000);
    kit.notifier.raise(card("card_c", "ses_3", "Third"));
    await hook.http.received(3);
    await kit.notifier.idle();
    await kit.restart(kit.clock.now() + 1_000);
    hook.http.answer = () => ({ status: 200 });
    await kit.advance(13_999);
    assert.equal(hook.http.requests.length, 3);
    await kit.advance(1);
    const [, , , c] = await hook.received(4);
    assert.equal(c.json.session, "ses_3");
    await kit.advance(3_600_000);
    assert.equal(hook.http.requests.length, 4);
    assert.equal(kit.count("notify_deliveries WHERE status = 'sent'"), 3);
  }));

test("a failing receiver is tried six times with growing waits on the relay clock, then given up; secrets never logged", () =>
  withHook(async ({ hook, kit }) => {
    const topic = "secret-topic-93ab";
    kit.set({ ntfyUrl: `http://127.0.0.1:1/${topic}` }); // nothing listens on port 1
    hook.http.answer = () => ({ status: 503 });
    kit.notifier.raise(card("card_a", "ses_1", "Demo"));
    await hook.http.received(1);
    await kit.notifier.idle();
    const seen = [1];
    for (const wait of [15_000, 60_000, 300_000, 900_000, 1_800_000]) {
      await kit.advance(wait - 1);
      assert.equal(hook.http.requests.length, seen.at(-1), `not before ${wait} ms`);
      await kit.advance(1);
      await hook.http.received(seen.at(-1)! + 1);
      seen.push(hook.http.requests.length);
    }
    assert.deepEqual(seen, [1, 2, 3, 4, 5, 6]);
    await kit.advance(24 * 3_600_000);
    assert.equal(hook.http.requests.length, 6, "bounded: six attempts");
    assert.equal(kit.count("notify_deliveries WHERE status = 'failed'"), 2);
    assert.equal(kit.logs.length, 2);
    assert.match(kit.logs.join("\n"), /webhook delivery of ntf_\w+ failed after 6 attempts: HTTP 503/);
    assert.match(kit.logs.join("\n"), /ntfy delivery of ntf_\w+ failed after 6 attempts: ECONNREFUSED/);
    for (const line of kit.logs) {
      assert.ok(!line.includes(topic) && !line.includes(SECRET), `no secret in: ${line}`);
    }
  }));

test("no channel set up: nothing is recorded, so turning one on later brings no flood", async () => {
  const kit = NotifyKit.open({ at: T0, settings: { webPush: true } });
  try {
    assert.equal(kit.notifier.raise(card("card_a", "ses_1", "Demo")), false, "webPush on but no browser subscribed");
    assert.equal(kit.count("notify_items"), 0);
  } finally {
    kit.close();
  }
});
