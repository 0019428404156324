// Action tokens (contract §10.3): the token a card's push carries acts on that one card,
// once, within an hour on the relay clock, without the owner token; a used, expired or
// foreign token changes nothing. Tokens are taken from real pushes the local push service
// decrypted.
import { test } from "node:test";
import assert from "node:assert/strict";
import { card, type NotifyKit, withPush } from "./helpers/notify-kit.ts";
import { RelayError } from "../src/core/errors.ts";

const T0 = Date.now();

const refused = (fn: () => void, words: RegExp) =>
  assert.throws(
    fn,
    (e: unknown) =>
      e instanceof RelayError &&
      e.code === "REMOTE_RELAY_PERMISSION" &&
      words.test(e.message) &&
      e.message.endsWith("Nothing was decided."),
  );

/** Two card pushes received (card_a at T0, card_b a minute later) and their tokens. */
function withTwoCards(
  fn: (h: { kit: NotifyKit; a: string; b: string; used: () => unknown[] }) => Promise<void>,
): Promise<void> {
  return withPush(async ({ push, kit }) => {
    kit.notify.subscriptions.add(push.subscribe());
    kit.notifier.raise(card("card_a", "ses_1", "Demo"));
    await kit.advance(60_000);
    kit.notifier.raise(card("card_b", "ses_2", "Other"));
    const [a, b] = (await push.received(2)).map((m) => m.payload.card.actionToken as string);
    const used = () => kit.db.prepare("SELECT card_id, used_at FROM action_tokens ORDER BY card_id").all();
    await fn({ kit, a, b, used });
  }, T0);
}

test("a token acts on its own card once; a second use changes nothing", () =>
  withTwoCards(async ({ kit, a, used }) => {
    kit.notify.tokens.verifyAndConsume("card_a", a);
    refused(() => kit.notify.tokens.verifyAndConsume("card_a", a), /already acted on/);
    assert.deepEqual(used(), [
      { card_id: "card_a", used_at: T0 + 60_000 },
      { card_id: "card_b", used_at: null },
    ]);
  }));

test("another card's token, an unknown one or one that is not text changes nothing", () =>
  withTwoCards(async ({ kit, a, b, used }) => {
    refused(() => kit.notify.tokens.verifyAndConsume("card_a", b), /does not act on card card_a/);
    refused(() => kit.notify.tokens.verifyAndConsume("card_b", a), /does not act on card card_b/);
    refused(() => kit.notify.tokens.verifyAndConsume("card_a", "made-up-token"), /does not act on card card_a/);
    refused(() => kit.notify.tokens.verifyAndConsume("card_a", { token: a }), /does not act/);
    refused(() => kit.notify.tokens.verifyAndConsume("card_a", "x".repeat(100_000)), /does not act/);
    assert.deepEqual(used(), [
      { card_id: "card_a", used_at: null },
      { card_id: "card_b", used_at: null },
    ]);
    // Both still work for their own cards afterwards.
    kit.notify.tokens.verifyAndConsume("card_a", a);
    kit.notify.tokens.verifyAndConsume("card_b", b);
  }));

test("a token expires an hour after its notification, on the relay clock", () =>
  withTwoCards(async ({ kit, a, b, used }) => {
    // card_a's notification went out at T0, card_b's at T0 + 60 s.
    await kit.advance(3_600_000 - 60_000 - 1);
    kit.notify.tokens.verifyAndConsume("card_a", a); // the last millisecond of its hour
    await kit.advance(60_001);
    refused(() => kit.notify.tokens.verifyAndConsume("card_b", b), /expired/);
    assert.deepEqual(used(), [
      { card_id: "card_a", used_at: T0 + 3_600_000 - 1 },
      { card_id: "card_b", used_at: null },
    ]);
  }));

test("a push retried after a restart carries a new token for the same card, and one use spends both", () =>
  withPush(async ({ push, kit }) => {
    const [s1, s2] = [push.subscribe(), push.subscribe()];
    kit.notify.subscriptions.add(s1);
    kit.notify.subscriptions.add(s2);
    push.answerWith(s2.endpoint, 503);
    kit.notifier.raise(card("card_a", "ses_1", "Demo"));
    const [first] = await push.received(1);
    await kit.notifier.idle();
    await kit.restart(T0 + 1_000);
    push.answerWith(s2.endpoint, null); // answering again
    await kit.advance(15_000);
    const [, second] = await push.received(2);
    assert.equal(second.endpoint, s2.endpoint);
    assert.notEqual(second.payload.card.actionToken, first.payload.card.actionToken);
    kit.notify.tokens.verifyAndConsume("card_a", second.payload.card.actionToken);
    refused(() => kit.notify.tokens.verifyAndConsume("card_a", first.payload.card.actionToken), /already acted on/);
  }, T0));
