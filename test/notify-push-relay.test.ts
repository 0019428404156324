// Web Push through a real relay process (contract §10.3): the page's key and subscription
// routes, a card raised by relay_tool reaching a local push service (which checks the VAPID
// JWT and decrypts the aes128gcm payload with the browser's keys) with the card's detail and
// options, and POST /api/cards/:id/act deciding it with the one-time action token, without
// the owner token; a used, another card's or an expired token changes nothing.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { TestRelay } from "./helpers/relay-process.ts";
import { cardAct, PushService, type PushMessage } from "./helpers/push-service.ts";
import { tool, waitCard } from "./helpers/control-helpers.ts";
import { fakeCliDir } from "./helpers/fake-cli.ts";

let relay: TestRelay;
let push: PushService;
before(async () => {
  push = await PushService.start();
  relay = await TestRelay.start({ env: { PATH: `${fakeCliDir()}:${process.env.PATH}` } });
});
after(async () => {
  await relay.stop();
  await push.close();
});

/** The notification route as a notification's button calls it: no Authorization header. */
const act = (cardId: string, body: Record<string, unknown>) => cardAct(relay.url, cardId, body);
/** The push that carries this card. Other notifications may go out before it: an owner's turn
 * that failed (the previous test's, when its card expired) is notified too, at whatever real
 * moment that turn's end is committed. */
const pushFor = (cardId: string): Promise<PushMessage> => push.pushFor(cardId);
const cardStatus = async (session: string, id: string) =>
  (await relay.session(session)).cards.find((c: any) => c.id === id)?.status;

let first: { session: string; card: any; msg: PushMessage; reply: Promise<any> };

test("the page subscribes with the relay's VAPID key; bad subscriptions are refused and nothing kept", async () => {
  const k1 = await relay.api("GET", "/api/push/key");
  assert.equal(k1.status, 200);
  assert.equal(Buffer.from(k1.json.key, "base64url").length, 65);
  assert.equal((await relay.api("GET", "/api/push/key")).json.key, k1.json.key, "made once and kept");
  // The owner token is needed for both.
  assert.equal((await fetch(`${relay.url}/api/push/key`)).status, 401);
  const bad = await relay.api("POST", "/api/push/subscriptions", {
    endpoint: "http://push.example/x",
    keys: push.subscribe().keys,
  });
  assert.equal(bad.status, 400);
  assert.equal(bad.json.code, "REMOTE_RELAY_INVALID_INPUT");
  const r = await relay.api("POST", "/api/push/subscriptions", push.subscribe());
  assert.equal(r.status, 201, JSON.stringify(r.json));
  // A second browser, then removed: one subscription is left to push to.
  const other = push.subscribe();
  assert.equal((await relay.api("POST", "/api/push/subscriptions", other)).status, 201);
  assert.deepEqual((await relay.api("DELETE", "/api/push/subscriptions", { endpoint: other.endpoint })).json, {
    removed: 1,
  });
});

test("a card's push carries its text, its detail and Allow/Deny with an action token; the token decides it once, without the owner token", async () => {
  const { json: key } = await relay.api("GET", "/api/push/key");
  const session = await relay.createSession({ title: "Starter" });
  const reply = relay.say(
    session,
    tool({
      action: "create_session",
      relay: "this",
      title: "Child",
      text: "first prompt: tidy the changelog",
      wait_seconds: 0,
    }),
    90_000,
  );
  const card = await waitCard(relay, session);
  const [msg] = await push.received(1);
  assert.deepEqual(push.refused, []);
  assert.equal(msg.vapidKey, key.key, "signed with the key the page subscribed with");
  assert.equal(msg.payload.title, card.text);
  assert.match(msg.payload.body, /first prompt: tidy the changelog/);
  assert.equal(msg.payload.card.id, card.id);
  assert.deepEqual(msg.payload.card.options, [
    { id: "allow", name: "Allow" },
    { id: "deny", name: "Deny" },
  ]);
  assert.equal(msg.payload.url, `${relay.url}/#session=${session}`);
  assert.ok(!JSON.stringify(msg.payload).includes(relay.token), "the owner token is never in a notification");
  const token = msg.payload.card.actionToken;

  // A wrong token changes nothing.
  const wrong = await act(card.id, { actionToken: "x".repeat(43), decision: "allow" });
  assert.equal(wrong.status, 403);
  assert.equal(wrong.json.code, "REMOTE_RELAY_PERMISSION");
  assert.match(wrong.json.error, /Nothing was decided\.$/);
  // A decision the card does not take leaves the token as it was.
  assert.equal((await act(card.id, { actionToken: token, optionId: "nope" })).status, 400);
  assert.equal(await cardStatus(session, card.id), "pending");

  const ok = await act(card.id, { actionToken: token, decision: "allow" });
  assert.equal(ok.status, 200, JSON.stringify(ok.json));
  assert.equal(ok.json.status, "allowed");
  first = { session, card, msg, reply };
  const again = await act(card.id, { actionToken: token, decision: "deny" });
  assert.equal(again.status, 403);
  assert.match(again.json.error, /already acted on/);
  assert.equal(await cardStatus(session, card.id), "allowed", "the second use changed nothing");
  await reply;
});

test("another card's token and an expired token are refused and change nothing", async () => {
  const session = await relay.createSession({ title: "Second" });
  const reply = relay.say(
    session,
    tool({ action: "create_session", relay: "this", title: "Child two", text: "second", wait_seconds: 0 }),
    90_000,
  );
  const card = await waitCard(relay, session);
  // Within 30 s of the first notification: it waits for the end of those 30 s.
  await relay.advance(30_000);
  const msg = await pushFor(card.id);

  const foreign = await act(card.id, { actionToken: first.msg.payload.card.actionToken, decision: "allow" });
  assert.equal(foreign.status, 403);
  assert.match(foreign.json.error, /does not act on card/);
  assert.equal(await cardStatus(session, card.id), "pending");

  // An hour on: the card expired with its wait, and the token with its hour.
  await relay.advance(61 * 60_000);
  const late = await act(card.id, { actionToken: msg.payload.card.actionToken, decision: "allow" });
  assert.equal(late.status, 403);
  assert.match(late.json.error, /expired/);
  assert.equal(await cardStatus(session, card.id), "expired");
  await reply;
});

test("the action route takes no owner token in place of an action token, and bad bodies change nothing", async () => {
  const r = await fetch(`${relay.url}/api/cards/${first.card.id}/act`, {
    method: "POST",
    headers: { authorization: `Bearer ${relay.token}`, "content-type": "application/json" },
    body: JSON.stringify({ decision: "deny" }),
  });
  assert.equal(r.status, 403);
  const junk = await fetch(`${relay.url}/api/cards/${first.card.id}/act`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "[1,2",
  });
  assert.equal(junk.status, 400);
  assert.equal(await cardStatus(first.session, first.card.id), "allowed");
});

test("a CLI's permission card: the push offers the CLI's options, and one of them answers it through the action token", async () => {
  const s = await relay.createSession({ provider: "claude", mode: "ask", title: "Editor" });
  const reply = relay.say(s, "/permission rm -rf build", 90_000);
  const card = await waitCard(relay, s);
  // The previous test's owner turn failing (its card expired) is notified when that turn's end
  // is committed, a real moment the relay clock does not order: if that went out within the
  // last 30 s, this card waits for the end of those 30 s (gathering, docs/notifications.md).
  await relay.advance(30_000);
  const msg = await pushFor(card.id);
  assert.deepEqual(msg.payload.card.options, [
    { id: "allow", name: "Allow" },
    { id: "allow_always", name: "Always allow" },
    { id: "reject", name: "Reject" },
  ]);
  assert.match(msg.payload.body, /^Command: rm -rf build$/m);
  // Its title says who asks for what, without the input as JSON the card's text carries.
  assert.match(card.text, /Input: \{/);
  assert.equal(msg.payload.title, "Claude asks to use rm -rf build");
  const r = await act(card.id, { actionToken: msg.payload.card.actionToken, optionId: "reject" });
  assert.equal(r.status, 200, JSON.stringify(r.json));
  assert.equal(r.json.status, "denied");
  assert.equal(r.json.optionId, "reject");
  assert.equal((await reply).text, "permission: reject");
});

test("at most 60 notification actions a minute: the 61st is refused without looking at the token", async () => {
  await relay.advance(60_000);
  const codes: string[] = [];
  for (let i = 0; i < 61; i++)
    codes.push((await act(first.card.id, { actionToken: `guess-${i}`, decision: "allow" })).json.code);
  assert.deepEqual(codes.slice(0, 60), Array(60).fill("REMOTE_RELAY_PERMISSION"));
  assert.equal(codes[60], "REMOTE_RELAY_LIMIT");
  await relay.advance(60_000);
  assert.equal(
    (await act(first.card.id, { actionToken: "again", decision: "allow" })).json.code,
    "REMOTE_RELAY_PERMISSION",
  );
});
