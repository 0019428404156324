// The webhook and ntfy end to end over real HTTP (contract §10.3): the webhook's JSON with
// X-OAR-Signature checked by the receiver with the shared secret; ntfy's text body with
// Title, Click and Priority as ntfy reads them. The receivers' own checks are shown to refuse
// what is wrong, so a passing channel test means something.
import { test } from "node:test";
import assert from "node:assert/strict";
import webpush from "web-push";
import { card, NotifyKit, PAGE } from "./helpers/notify-kit.ts";
import { NtfyReceiver, WebhookReceiver } from "./helpers/notify-receivers.ts";
import { PushService } from "./helpers/push-service.ts";
import { turnNeed } from "../src/notify/needs.ts";
import { signature } from "../src/notify/webhook.ts";

const T0 = Date.parse("2026-03-02T12:00:00.000Z");

test("the webhook gets signed JSON; the receiver's check refuses another secret; without a secret it goes unsigned", async () => {
  const hook = await WebhookReceiver.start("s3cret");
  const kit = NotifyKit.open({ at: T0, settings: { webPush: false, webhookUrl: hook.url, webhookSecret: "s3cret" } });
  try {
    kit.notifier.raise(
      turnNeed(
        { turnId: "turn_1", sessionId: "ses_1", status: "error", byOwner: true, error: "Invalid API key · 401" },
        "Démo ✓",
        false,
      )!,
    );
    const [e] = await hook.received(1);
    assert.equal(e.signed, true);
    assert.deepEqual(e.json, {
      type: "turn_error",
      relay: "desk",
      session: "ses_1",
      title: '"Démo ✓": the turn failed',
      text: "Invalid API key · 401",
      url: `${PAGE}#session=ses_1`,
      at: "2026-03-02T12:00:00.000Z",
    });
    const raw = hook.http.requests[0];
    assert.equal(raw.headers["content-type"], "application/json");
    assert.equal(raw.headers["x-oar-signature"], signature(raw.body.toString("utf8"), "s3cret"));
    assert.match(e.notification, /^ntf_/);

    kit.set({ webhookSecret: "another" });
    await kit.advance(60_000);
    kit.notifier.raise(card("card_a", "ses_1", "Demo"));
    const [, wrong] = await hook.received(2);
    assert.equal(wrong.signed, false, "signed with another secret");

    kit.set({ webhookSecret: null });
    await kit.advance(60_000);
    kit.notifier.raise(card("card_b", "ses_1", "Demo"));
    await hook.received(3);
    assert.equal(hook.http.requests[2].headers["x-oar-signature"], undefined);
  } finally {
    kit.close();
    await hook.close();
  }
});

test("ntfy gets the text as body with Title (UTF-8 as RFC 2047), Click and Priority", async () => {
  const ntfy = await NtfyReceiver.start();
  const kit = NotifyKit.open({ at: T0, settings: { webPush: false, ntfyUrl: ntfy.topicUrl("oar-owner-7d2") } });
  try {
    kit.notifier.raise(card("card_a", "ses_1", "Démo — one", `line one\n${"é".repeat(3000)}`));
    const [m] = await ntfy.received(1);
    assert.deepEqual(
      { ...m, body: m.body.slice(0, 8) },
      {
        topic: "oar-owner-7d2",
        title: 'Allow send on relay "desk" · session "Démo — one"? · Mode: ask',
        click: `${PAGE}#session=ses_1`,
        priority: "high",
        body: "line one",
      },
    );
    assert.ok(Buffer.byteLength(m.body) <= 4000 && m.body.endsWith("…"), "cut to what ntfy keeps as text");
    assert.match(String(ntfy.http.requests[0].headers.title), /^=\?UTF-8\?B\?/);

    kit.set({ turnsDone: true });
    await kit.advance(60_000);
    kit.notifier.raise(
      turnNeed(
        { turnId: "turn_2", sessionId: "ses_1", status: "done", byOwner: true, reply: "Done: 3 files" },
        "Plain",
        true,
      )!,
    );
    const [, done] = await ntfy.received(2);
    assert.deepEqual([done.title, done.priority, done.body], ['"Plain" finished', "default", "Done: 3 files"]);
    assert.equal(ntfy.http.requests[1].headers.title, '"Plain" finished', "ASCII goes as it is");
  } finally {
    kit.close();
    await ntfy.close();
  }
});

test("the local push service refuses a wrong audience, a JWT not signed by k, and a payload for other keys", async () => {
  const push = await PushService.start();
  try {
    const sub = push.subscribe();
    const other = push.subscribe();
    const keys = webpush.generateVAPIDKeys();
    const vapid = { subject: "mailto:test@relay.invalid", ...keys };
    const send = async (details: ReturnType<typeof webpush.generateRequestDetails>, endpoint: string) => {
      const res = await fetch(endpoint, {
        method: "POST",
        headers: details.headers as Record<string, string>,
        body: details.body ? new Uint8Array(details.body) : undefined,
      });
      return res.status;
    };
    const ok = webpush.generateRequestDetails(sub, '{"title":"hi"}', { vapidDetails: vapid });
    assert.equal(await send(ok, sub.endpoint), 201);
    assert.deepEqual(push.messages[0].payload, { title: "hi" });

    const elsewhere = webpush.generateRequestDetails({ ...sub, endpoint: "http://127.0.0.1:1/push/x" }, "{}", {
      vapidDetails: vapid,
    });
    assert.equal(await send(elsewhere, sub.endpoint), 403);
    const stranger = webpush.generateVAPIDKeys();
    const swapped = webpush.generateRequestDetails(sub, "{}", { vapidDetails: vapid });
    swapped.headers.Authorization = String(swapped.headers.Authorization).replace(/k=.*$/, `k=${stranger.publicKey}`);
    assert.equal(await send(swapped, sub.endpoint), 403);
    const forOther = webpush.generateRequestDetails({ ...other, endpoint: sub.endpoint }, "{}", {
      vapidDetails: vapid,
    });
    assert.equal(await send(forOther, sub.endpoint), 403);
    assert.deepEqual(
      push.refused.map((r) => r.why.replace(/[\d.:/]+/g, "#").slice(0, 40)),
      [
        "aud http# is not http#",
        "the JWT's signature does not verify with",
        "Unsupported state or unable to authentic",
      ],
    );
    assert.equal(push.messages.length, 1);
  } finally {
    await push.close();
  }
});
