// Webhook and ntfy through a real relay process (contract §10.3), on the manual clock: the
// first card goes out at once and what follows within 30 s as one notification that says how
// many; inside quiet hours nothing goes out until they end, and a card decided meanwhile is
// not notified; a turn the owner started failing is notified; a restart carries on a retry
// without sending anything twice.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { TestRelay } from "./helpers/relay-process.ts";
import { NtfyReceiver, WebhookReceiver } from "./helpers/notify-receivers.ts";
import { decide, tool, waitCard } from "./helpers/control-helpers.ts";

const SECRET = "hook-secret-7f3a";
let relay: TestRelay;
let hook: WebhookReceiver;
let ntfy: NtfyReceiver;
before(async () => {
  hook = await WebhookReceiver.start(SECRET);
  ntfy = await NtfyReceiver.start();
  relay = await TestRelay.start();
  const r = await relay.api("PATCH", "/api/settings", {
    notify: { webhookUrl: hook.url, webhookSecret: SECRET, ntfyUrl: ntfy.topicUrl("oar-desk-x1") },
  });
  assert.equal(r.status, 200, JSON.stringify(r.json));
  // Secrets never leave the relay: GET shows them masked.
  assert.equal(r.json.notify.webhookSecret, "****");
  assert.equal(r.json.notify.ntfyUrl, "****");
  assert.equal(r.json.notify.webhookUrl, hook.url);
});
after(async () => {
  await relay.stop();
  await hook.close();
  await ntfy.close();
});

const now = async () => Date.parse(await relay.advance(0));
/** A conversation whose first create_session raises a card; its reply comes once decided. */
async function raise(title: string) {
  const session = await relay.createSession({ title });
  const reply = relay.say(
    session,
    tool({
      action: "create_session",
      relay: "this",
      title: `${title} child`,
      text: `prompt of ${title}`,
      wait_seconds: 0,
    }),
    120_000,
  );
  return { session, reply, card: await waitCard(relay, session) };
}

test("the setting refuses bad values by name and changes nothing", async () => {
  const r = await relay.api("PATCH", "/api/settings", { notify: { webhookUrl: "ftp://x" } });
  assert.equal(r.status, 400);
  assert.match(r.json.error, /^Setting notify\.webhookUrl is not valid/);
  const q = await relay.api("PATCH", "/api/settings", {
    notify: { quietHours: { from: "22:00", to: "22:00", tz: "UTC" } },
  });
  assert.equal(q.status, 400);
  assert.equal((await relay.api("GET", "/api/settings")).json.notify.webhookUrl, hook.url);
});

test("three cards within 30 s: the first at once, the other two as one that says how many", async () => {
  const a = await raise("Alpha");
  const [first] = await hook.received(1);
  assert.equal(first.signed, true, "X-OAR-Signature verifies with the secret");
  assert.equal(first.json.type, "card");
  assert.equal(first.json.relay, "desk");
  assert.equal(first.json.session, a.session);
  assert.equal(first.json.title, a.card.text);
  assert.match(first.json.text, /prompt of Alpha/);
  const [n1] = await ntfy.received(1);
  assert.equal(n1.title, a.card.text);
  assert.equal(n1.priority, "high");
  assert.equal(n1.click, `${relay.url}/#session=${a.session}`);
  // Every notification carries the card's whole detail, as GET /api/cards shows it.
  const listed = (await relay.api("GET", `/api/cards?session=${a.session}`)).json.cards[0];
  assert.match(listed.detail, /prompt of Alpha/);
  assert.equal(first.json.text, listed.detail);
  assert.equal(n1.body, listed.detail);

  const b = await raise("Beta");
  const c = await raise("Gamma");
  // Not before the end of the 30 s after the first.
  await relay.advance(30_000);
  const [, gathered] = await hook.received(2);
  assert.equal(gathered.signed, true);
  assert.equal(gathered.json.type, "gathered");
  assert.equal(gathered.json.title, "2 sessions need you");
  assert.match(gathered.json.text, /Beta/);
  assert.match(gathered.json.text, /Gamma/);
  assert.ok(
    Date.parse(gathered.json.at) - Date.parse(first.json.at) >= 30_000,
    `${first.json.at} → ${gathered.json.at}`,
  );
  const [, n2] = await ntfy.received(2);
  assert.equal(n2.title, "2 sessions need you");
  assert.equal(ntfy.messages.length, 2, "ntfy likewise: the first at once, the other two as one");
  for (const x of [a, b, c]) await decide(relay, x.card.id, "deny");
  await Promise.all([a.reply, b.reply, c.reply]);
  assert.equal(hook.events.length, 2, "deciding sends nothing");
});

test("inside quiet hours nothing goes out until they end; a card decided meanwhile is not notified", async () => {
  // Longest wait an hour: the cards stay pending through half an hour of quiet.
  assert.equal((await relay.api("PATCH", "/api/settings", { longestWaitMinutes: 60 })).status, 200);
  await relay.advance(60_000);
  const start = new Date(await now());
  const hhmm = (d: Date) => d.toISOString().slice(11, 16);
  const end = new Date(start.getTime() + 30 * 60_000);
  end.setUTCSeconds(0, 0);
  assert.equal(
    (
      await relay.api("PATCH", "/api/settings", {
        notify: { quietHours: { from: hhmm(start), to: hhmm(end), tz: "UTC" } },
      })
    ).status,
    200,
  );
  const dropped = await raise("Delta");
  const kept = await raise("Epsilon");
  await decide(relay, dropped.card.id, "deny");
  await dropped.reply;
  await relay.advance(20 * 60_000);
  assert.equal(hook.events.length, 2);
  assert.equal(ntfy.messages.length, 2, "ntfy waits for the quiet hours' end too");
  await relay.setClock(end.toISOString());
  const [, , third] = await hook.received(3);
  assert.equal(third.json.type, "card", "one card, as itself: the decided one went with its decision");
  assert.equal(third.json.title, kept.card.text);
  assert.ok(Date.parse(third.json.at) >= end.getTime(), third.json.at);
  const [, , n3] = await ntfy.received(3);
  assert.equal(n3.title, kept.card.text);
  assert.match(n3.body, /prompt of Epsilon/);
  await decide(relay, kept.card.id, "deny");
  await kept.reply;
  assert.equal(
    (await relay.api("PATCH", "/api/settings", { notify: { quietHours: null }, longestWaitMinutes: 10 })).status,
    200,
  );
});

test("a turn the owner started failing is notified; a retry pending at a crash goes out once after the restart, nothing twice", async () => {
  const s = await relay.createSession({ title: "Worker" });
  await relay.advance(60_000);
  const before = hook.events.length;
  const ntfyBefore = ntfy.messages.length;
  // The webhook receiver is down for this one: the relay keeps it to try again in 15 s.
  hook.http.answer = () => ({ status: 503 });
  await relay.say(s, "/error the build broke");
  const [failed] = (await hook.received(before + 1)).slice(before);
  assert.equal(failed.json.type, "turn_error");
  assert.equal(failed.json.text, "the build broke");
  assert.equal(failed.json.title, '"Worker": the turn failed');
  const [sentNtfy] = (await ntfy.received(ntfyBefore + 1)).slice(ntfyBefore);
  assert.equal(sentNtfy.body, "the build broke");

  // Killed with the retry pending; started again on the same store (its test clock starts
  // again at the real time: it is set on to 16 s after the failed attempt).
  const at = await now();
  await relay.restart();
  hook.http.answer = () => ({ status: 200 });
  await relay.setClock(new Date(at + 16_000).toISOString());
  const [retried] = (await hook.received(before + 2)).slice(before + 1);
  assert.equal(retried.notification, failed.notification, "the same notification, tried again");
  assert.equal(retried.json.text, "the build broke");

  // A later notification comes next: nothing in between, ntfy (sent before the crash) not again.
  await relay.advance(60_000);
  await relay.say(s, "/error marker");
  const [marker] = (await hook.received(before + 3)).slice(before + 2);
  assert.equal(marker.json.text, "marker");
  const after = (await ntfy.received(ntfyBefore + 2)).slice(ntfyBefore);
  assert.deepEqual(
    after.map((m) => m.body),
    ["the build broke", "marker"],
  );
  // An agent's turn or the owner's own stop is nobody's news: only the owner's failed turns went out.
  assert.deepEqual(
    hook.events.slice(before).map((e) => e.json.type),
    ["turn_error", "turn_error", "turn_error"],
  );
});

test("a question for the owner is notified with its options; one answered before it is due is not", async () => {
  await relay.advance(60_000);
  const before = hook.events.length;
  const s = await relay.createSession({ title: "Deployer" });
  const inbox = async (text: string) =>
    relay.waitFor(async () =>
      (await relay.api("GET", "/api/inbox")).json.questions.find((q: any) => q.session === s && q.question === text),
    );
  const first = relay.say(s, "/ask_user Deploy now? | Yes | No", 120_000);
  const q = await inbox("Deploy now?");
  const [asked] = (await hook.received(before + 1)).slice(before);
  assert.equal(asked.json.type, "question");
  assert.equal(asked.json.title, '"Deployer" asks you');
  assert.equal(asked.json.text, "Deploy now?\n• Yes\n• No");
  await relay.api("POST", `/api/questions/${q.id}`, { choice: "No" });
  await first;
  // Within 30 s of that one: it waits, and is answered meanwhile.
  const second = relay.say(s, "/ask_user Roll back?", 120_000);
  const q2 = await inbox("Roll back?");
  await relay.api("POST", `/api/questions/${q2.id}`, { answer: "no" });
  await second;
  await relay.advance(30_000);
  await relay.say(s, "/error marker two");
  const [next] = (await hook.received(before + 2)).slice(before + 1);
  assert.equal(next.json.text, "marker two", "the answered question was not notified");
});

test("a card pending at a crash is not notified after the restart (the restart expired it)", async () => {
  await relay.advance(60_000);
  const before = hook.events.length;
  const start = new Date(await now());
  const end = new Date(start.getTime() + 30 * 60_000);
  end.setUTCSeconds(0, 0);
  const hhmm = (d: Date) => d.toISOString().slice(11, 16);
  assert.equal(
    (
      await relay.api("PATCH", "/api/settings", {
        notify: { quietHours: { from: hhmm(start), to: hhmm(end), tz: "UTC" } },
      })
    ).status,
    200,
  );
  const c = await raise("Zeta");
  void c.reply.catch(() => {});
  await relay.restart();
  assert.equal((await relay.session(c.session)).cards.find((x: any) => x.id === c.card.id).status, "expired");
  await relay.setClock(end.toISOString());
  assert.equal((await relay.api("PATCH", "/api/settings", { notify: { quietHours: null } })).status, 200);
  const s = await relay.createSession({ title: "After" });
  await relay.say(s, "/error marker three");
  const [next] = (await hook.received(before + 1)).slice(before);
  assert.equal(next.json.text, "marker three", "the expired card went with its expiry");
});

test("links go where the owner reaches the page: notify.publicUrl in the webhook's url and ntfy's Click, else the relay's own address", async () => {
  await relay.advance(60_000);
  const before = hook.events.length;
  const nBefore = ntfy.messages.length;
  const s = await relay.createSession({ title: "Linked" });
  await relay.say(s, "/error marker local");
  const [local] = (await hook.received(before + 1)).slice(before);
  assert.equal(local.json.url, `${relay.url}/#session=${s}`);

  const set = await relay.api("PATCH", "/api/settings", { notify: { publicUrl: "https://oar.example.ts.net/" } });
  assert.equal(set.status, 200, JSON.stringify(set.json));
  assert.equal(set.json.notify.publicUrl, "https://oar.example.ts.net/");
  // A link carrying a fragment (a token) is refused and changes nothing.
  const bad = await relay.api("PATCH", "/api/settings", { notify: { publicUrl: "https://x.example/#token=t" } });
  assert.equal(bad.status, 400);
  assert.match(bad.json.error, /^Setting notify\.publicUrl is not valid/);
  assert.equal((await relay.api("GET", "/api/settings")).json.notify.publicUrl, "https://oar.example.ts.net/");

  await relay.advance(30_000);
  await relay.say(s, "/error marker public");
  const [pub] = (await hook.received(before + 2)).slice(before + 1);
  assert.equal(pub.json.text, "marker public");
  assert.equal(pub.json.url, `https://oar.example.ts.net/#session=${s}`);
  const [n] = (await ntfy.received(nBefore + 2)).slice(nBefore + 1);
  assert.equal(n.click, `https://oar.example.ts.net/#session=${s}`);
  assert.equal((await relay.api("PATCH", "/api/settings", { notify: { publicUrl: "" } })).json.notify.publicUrl, null);
});

test("a turn the owner started finishing is notified only with turnsDone, with its reply; an agent's turn never", async () => {
  await relay.advance(60_000);
  const before = hook.events.length;
  const s = await relay.createSession({ title: "Finisher" });
  await relay.say(s, "quietly done");
  assert.equal((await relay.api("PATCH", "/api/settings", { notify: { turnsDone: true } })).status, 200);
  // An agent's prompt to this session finishing: not the owner's turn.
  const agent = await relay.createSession({ title: "Agent caller" });
  await relay.say(agent, tool({ action: "send", relay: "this", session: s, text: "agent's work", wait_seconds: 60 }));
  await hook.received(before + 1);
  await relay.say(s, "loudly done");
  await relay.advance(30_000);
  const got = (await hook.received(before + 2)).slice(before);
  assert.deepEqual(
    got.map((e) => [e.json.type, e.json.session, e.json.title]),
    [
      ["turn_done", agent, '"Agent caller" finished'],
      ["turn_done", s, '"Finisher" finished'],
    ],
  );
  assert.match(got[1].json.text, /loudly done/);
  assert.equal((await relay.api("PATCH", "/api/settings", { notify: { turnsDone: false } })).status, 200);
});
