// Web Push end to end (contract §10.3): the relay's push request reaches a local push service
// that checks the VAPID JWT and decrypts the aes128gcm payload with the browser's keys; the
// VAPID key pair is made once and kept; a push service answering 404/410 removes the
// subscription; subscriptions are checked before they are kept; https push services are
// trusted through the system's authorities and NODE_EXTRA_CA_CERTS.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { card, NotifyKit, PAGE, withPush } from "./helpers/notify-kit.ts";
import { PushService } from "./helpers/push-service.ts";
import { questionNeed } from "../src/notify/needs.ts";
import { httpSender } from "../src/notify/sender.ts";
import { trustedCAs } from "../src/notify/trust.ts";
import { makeSelfSigned } from "../src/ops/tls.ts";
import { RelayError } from "../src/core/errors.ts";

const T0 = Date.now();

test("a card's push arrives signed (VAPID) and encrypted (aes128gcm), with its text, link, options and action token", () =>
  withPush(async ({ push, kit }) => {
    const sub = push.subscribe();
    kit.notify.subscriptions.add(sub);
    assert.equal(kit.notifier.raise(card("card_a", "ses_1", "Demo one", "rm -rf everything please")), true);
    const [m] = await push.received(1);
    assert.deepEqual(push.refused, []);
    assert.equal(m.endpoint, sub.endpoint);
    assert.equal(m.vapidKey, await kit.notify.publicKey());
    assert.equal(m.claims.aud, push.receiver.origin);
    assert.equal(m.headers.urgency, "high");
    assert.ok(Number(m.headers.ttl) > 0);
    const { card: c, ...rest } = m.payload;
    assert.deepEqual(rest, {
      title: 'Allow send on relay "desk" · session "Demo one"? · Mode: ask',
      body: "rm -rf everything please",
      url: `${PAGE}#session=ses_1`,
    });
    assert.equal(c.id, "card_a");
    assert.deepEqual(c.options, [
      { id: "allow", name: "Allow" },
      { id: "deny", name: "Deny" },
    ]);
    assert.match(c.actionToken, /^[A-Za-z0-9_-]{32}$/);
    // The store holds its hash, never the token.
    const stored = kit.db.prepare("SELECT * FROM action_tokens").all() as { hash: string }[];
    assert.equal(stored.length, 1);
    assert.notEqual(stored[0].hash, c.actionToken);
    assert.ok(!JSON.stringify(kit.db.prepare("SELECT * FROM notify_deliveries").all()).includes(c.actionToken));

    // A question carries no card and so no token; a long text is cut to fit a push.
    await kit.advance(60_000);
    kit.notifier.raise(
      questionNeed({ id: "ask_b", session_id: "ses_2", question: `Which?\n${"x".repeat(9000)}` }, "Deploy"),
    );
    const [, q] = await push.received(2);
    assert.equal(q.payload.card, undefined);
    assert.equal(q.payload.title, '"Deploy" asks you');
    assert.ok(q.payload.body.startsWith("Which?\nxxx") && q.payload.body.endsWith("…"));
  }, T0));

test("every subscribed browser gets the card with the same token; one whose push service answers 404 or 410 is removed", () =>
  withPush(async ({ push, kit }) => {
    const [a, b, c] = [push.subscribe(), push.subscribe(), push.subscribe()];
    for (const s of [a, b, c]) kit.notify.subscriptions.add(s);
    push.answerWith(b.endpoint, 410);
    push.answerWith(c.endpoint, 404);
    kit.notifier.raise(card("card_a", "ses_1", "Demo"));
    await push.received(1);
    await kit.notifier.idle();
    assert.deepEqual(kit.notify.subscriptions.endpoints(), [a.endpoint]);
    assert.equal(kit.count("notify_deliveries WHERE status = 'dropped'"), 2);
    // A second browser that works gets the same card token as the first.
    const d = push.subscribe();
    kit.notify.subscriptions.add(d);
    await kit.advance(60_000);
    kit.notifier.raise(card("card_b", "ses_1", "Demo"));
    const [, m1, m2] = await push.received(3);
    assert.equal(m1.payload.card.actionToken, m2.payload.card.actionToken);
    assert.deepEqual(new Set([m1.endpoint, m2.endpoint]), new Set([a.endpoint, d.endpoint]));
    // Web Push off in the setting: subscriptions stay, nothing is pushed.
    kit.set({ webPush: false });
    assert.equal(kit.notifier.raise(card("card_c", "ses_1", "Demo")), false);
  }, T0));

test("the VAPID key pair is made once and kept across restarts, with the subscriptions made with it", () =>
  withPush(async ({ push, kit }) => {
    const key = await kit.notify.publicKey();
    assert.equal(Buffer.from(key, "base64url").length, 65);
    const sub = push.subscribe();
    kit.notify.subscriptions.add(sub);
    await kit.restart(T0 + 1_000);
    assert.equal(await kit.notify.publicKey(), key);
    kit.notifier.raise(card("card_a", "ses_1", "Demo"));
    const [m] = await push.received(1);
    assert.equal(m.vapidKey, key);
  }, T0));

test("a subscription is checked before it is kept: https (http only on loopback), a P-256 key, a 16-byte auth", () =>
  withPush(async ({ push, kit }) => {
    const good = push.subscribe();
    const refuse = (raw: unknown, words: RegExp) =>
      assert.throws(
        () => kit.notify.subscriptions.add(raw),
        (e: unknown) =>
          e instanceof RelayError &&
          e.code === "REMOTE_RELAY_INVALID_INPUT" &&
          words.test(e.message) &&
          e.message.endsWith("Nothing was subscribed."),
      );
    refuse({ ...good, endpoint: "http://push.example.com/x" }, /https/);
    refuse({ ...good, endpoint: "ftp://127.0.0.1/x" }, /https/);
    refuse({ ...good, keys: { ...good.keys, p256dh: good.keys.auth } }, /p256dh/);
    refuse({ ...good, keys: { ...good.keys, auth: good.keys.p256dh } }, /auth/);
    refuse({ endpoint: good.endpoint }, /endpoint, keys/);
    refuse("nope", /endpoint, keys/);
    assert.equal(kit.count("push_subscriptions"), 0, "nothing was kept");
    kit.notify.subscriptions.add({ ...good, expirationTime: null });
    kit.notify.subscriptions.add({ ...good, endpoint: "https://push.example.com/abc" });
    kit.notify.subscriptions.add({ ...good, endpoint: "http://localhost:9/abc" });
    assert.equal(kit.count("push_subscriptions"), 3);
    kit.notify.subscriptions.add(good); // the same browser again: renewed, not doubled
    assert.equal(kit.count("push_subscriptions"), 3);
    assert.equal(kit.notify.subscriptions.remove(good.endpoint), 1);
    assert.equal(kit.notify.subscriptions.remove(), 2);
  }, T0));

test("an https push service is trusted through NODE_EXTRA_CA_CERTS (and the system bundle), an unknown certificate is not", async () => {
  const tls = await makeSelfSigned({ hosts: ["127.0.0.1"] });
  const dir = mkdtempSync(join(tmpdir(), "oar-ca-"));
  const caFile = join(dir, "extra-ca.pem");
  writeFileSync(caFile, tls.cert);
  const push = await PushService.start({ tls });
  const trusting = NotifyKit.open({ at: T0, send: httpSender({ env: { NODE_EXTRA_CA_CERTS: caFile } }) });
  const plain = NotifyKit.open({ at: T0, send: httpSender({ env: {} }) });
  try {
    for (const kit of [trusting, plain]) kit.notify.subscriptions.add(push.subscribe());
    trusting.notifier.raise(card("card_a", "ses_1", "Demo"));
    const [m] = await push.received(1);
    assert.equal(m.payload.card.id, "card_a");
    plain.notifier.raise(card("card_a", "ses_1", "Demo"));
    await plain.notifier.idle();
    const [row] = plain.db.prepare("SELECT status, last_error FROM notify_deliveries").all() as {
      status: string;
      last_error: string;
    }[];
    assert.equal(row.status, "pending", "a certificate error is retried later, not fatal");
    assert.match(row.last_error, /SELF_SIGNED|CERT/);
    assert.equal(push.messages.length, 1);

    // The list trusted: Node's roots, the system bundle (SSL_CERT_FILE overrides where), the extra file.
    const same = (p: string) => p.replace(/\s+/g, "") === tls.cert.replace(/\s+/g, "");
    assert.equal(trustedCAs({ NODE_EXTRA_CA_CERTS: caFile, SSL_CERT_FILE: caFile }).filter(same).length, 1, "once");
    assert.equal(trustedCAs({ SSL_CERT_FILE: caFile }).filter(same).length, 1);
    assert.equal(trustedCAs({}).filter(same).length, 0);
  } finally {
    trusting.close();
    plain.close();
    await push.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
