// A CLI's session/request_permission under the relay's modes (contract §9.2): in agent mode
// the relay answers allow-once itself (never an "always" option, even when the CLI lists it
// first); in ask and plan mode it becomes a card of kind `permission` in the conversation,
// answered with Allow, Deny or one of the CLI's options, or expiring at the wait limit.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { TestRelay } from "./helpers/relay-process.ts";
import { fakeCliDir, withEnv } from "./helpers/fake-cli.ts";

let relay: TestRelay;

before(async () => {
  const dir = fakeCliDir();
  relay = await withEnv({ PATH: `${dir}:${process.env.PATH}` }, () => TestRelay.start());
  await relay.waitFor(
    async () => (await relay.api("GET", "/api/providers")).json.providers.find((p: any) => p.id === "grok").checkedAt,
    90_000,
  );
});
after(() => relay.stop());

const create = async (body: Record<string, unknown>) => {
  const r = await relay.api("POST", "/api/sessions", { title: "t", ...body });
  assert.equal(r.status, 201, JSON.stringify(r.json));
  return r.json.id as string;
};
const post = async (id: string, text: string) => {
  const r = await relay.api("POST", `/api/sessions/${id}/messages`, { text });
  assert.equal(r.status, 201);
  return r.json.message_id as string;
};
const replyTo = (id: string, messageId: string) =>
  relay.waitFor(async () => {
    const s = await relay.session(id);
    const i = s.messages.findIndex((m: any) => m.id === messageId);
    return s.state !== "running_turn" && s.messages.slice(i + 1).find((m: any) => m.role === "agent");
  });
const cardOf = (id: string) =>
  relay.waitFor(async () =>
    (await relay.api("GET", `/api/cards?session=${id}`)).json.cards.find((c: any) => c.kind === "permission"),
  );

test("agent mode: the relay allows once by itself, never the 'always' option the CLI lists first", async () => {
  const g = await create({ provider: "grok" });
  assert.equal((await relay.say(g, "/permission ls")).text, "permission: once");
  assert.equal((await relay.api("GET", `/api/cards?session=${g}`)).json.cards.length, 0, "no card in agent mode");
});

test("ask mode: a permission card with the CLI's options; Allow, Deny and an option the owner picks", async () => {
  const c = await create({ provider: "claude", mode: "ask" });
  const m1 = await post(c, "/permission rm -rf build");
  const card = await cardOf(c);
  assert.equal(card.kind, "permission");
  assert.equal(card.status, "pending");
  assert.deepEqual(card.options, [
    { id: "allow", name: "Allow", kind: "allow_once" },
    { id: "allow_always", name: "Always allow", kind: "allow_always" },
    { id: "reject", name: "Reject", kind: "reject_once" },
  ]);
  assert.match(card.text, /^Claude asks to use rm -rf build\./);
  const allowed = await relay.api("POST", `/api/cards/${card.id}`, { decision: "allow" });
  assert.equal(allowed.status, 200);
  assert.equal(allowed.json.status, "allowed");
  assert.equal(allowed.json.optionId, "allow");
  assert.equal((await replyTo(c, m1)).text, "permission: allow");

  const m2 = await post(c, "/permission rm -rf build");
  const card2 = await cardOf(c);
  assert.equal((await relay.api("POST", `/api/cards/${card2.id}`, { decision: "deny" })).json.status, "denied");
  const r2 = await replyTo(c, m2);
  assert.equal(r2.text, "permission: reject");
  const meta = (await relay.session(c)).messages.find((m: any) => m.id === r2.id).meta;
  assert.equal(meta.activity[0].status, "failed", "the denied tool shows as failed");

  const m3 = await post(c, "/permission make");
  const card3 = await cardOf(c);
  const bad = await relay.api("POST", `/api/cards/${card3.id}`, { optionId: "nope" });
  assert.equal(bad.status, 400);
  assert.match(
    bad.json.error,
    /has no option 'nope'\. Options: allow \(Allow\), allow_always \(Always allow\), reject \(Reject\)/,
  );
  // The owner may pick "always" themself; the relay never does.
  assert.equal(
    (await relay.api("POST", `/api/cards/${card3.id}`, { optionId: "allow_always" })).json.status,
    "allowed",
  );
  assert.equal((await replyTo(c, m3)).text, "permission: allow_always");
});

test("ask mode: an unanswered permission card expires at the wait limit and the request is refused", async () => {
  const c = await create({ provider: "copilot", mode: "ask" });
  const m = await post(c, "/permission deploy");
  const card = await cardOf(c);
  await relay.advance(11 * 60_000);
  assert.equal((await replyTo(c, m)).text, "permission: cancelled");
  const after = (await relay.session(c)).cards.find((x: any) => x.id === card.id);
  assert.equal(after.status, "expired");
  assert.equal(after.expiredBecause, "timeout");
  // An option for the expired card: the truth (no longer pending), as Allow/Deny get it.
  const late = await relay.api("POST", `/api/cards/${card.id}`, { optionId: "allow" });
  assert.equal(late.status, 404);
  assert.equal(late.json.code, "REMOTE_RELAY_NOT_FOUND");
  assert.match(late.json.error, /is no longer pending \(expired\)\. Nothing was decided\./);
});

test("a permission card: both optionId and decision in one body is refused and changes nothing; an option for a decided card says it is no longer pending", async () => {
  const c = await create({ provider: "claude", mode: "ask" });
  const m = await post(c, "/permission publish");
  const card = await cardOf(c);
  const both = await relay.api("POST", `/api/cards/${card.id}`, { optionId: "allow", decision: "deny" });
  assert.equal(both.status, 400);
  assert.equal(both.json.code, "REMOTE_RELAY_INVALID_INPUT");
  assert.match(both.json.error, /decision or with optionId, not both.*Nothing was decided\./);
  const still = (await relay.api("GET", `/api/cards?session=${c}`)).json.cards.find((x: any) => x.id === card.id);
  assert.equal(still?.status, "pending", "the card is still waiting for the owner");

  assert.equal((await relay.api("POST", `/api/cards/${card.id}`, { optionId: "allow" })).json.status, "allowed");
  assert.equal((await replyTo(c, m)).text, "permission: allow");
  for (const body of [{ optionId: "reject" }, { decision: "deny" }]) {
    const again = await relay.api("POST", `/api/cards/${card.id}`, body);
    assert.equal(again.status, 404, JSON.stringify(again.json));
    assert.equal(again.json.code, "REMOTE_RELAY_NOT_FOUND");
    assert.match(again.json.error, /is no longer pending \(allowed\)\. Nothing was decided\./);
  }
  assert.equal(
    (await relay.session(c)).cards.find((x: any) => x.id === card.id).optionId,
    "allow",
    "the first answer stands",
  );
});

test("plan mode without a CLI plan mode (Grok) asks by card too", async () => {
  const g = await create({ provider: "grok", mode: "plan" });
  const m = await post(g, "/permission ls");
  const card = await cardOf(g);
  assert.match(card.text, /asked because: the conversation is in plan mode/);
  await relay.api("POST", `/api/cards/${card.id}`, { decision: "allow" });
  assert.equal((await replyTo(g, m)).text, "permission: once");
});

test("agent mode with only 'always' options: a card; Allow cannot pick for the owner, Deny refuses", async () => {
  const g = await create({ provider: "grok" });
  const m = await post(g, "/permission-always ls");
  const card = await cardOf(g);
  assert.match(card.text, /asked because: it offers only options that would allow it always/);
  const allow = await relay.api("POST", `/api/cards/${card.id}`, { decision: "allow" });
  assert.equal(allow.status, 400);
  assert.match(allow.json.error, /offers no allow-once option, and the relay does not pick an "always" option for you/);
  assert.equal((await relay.api("POST", `/api/cards/${card.id}`, { decision: "deny" })).json.status, "denied");
  assert.equal(
    (await replyTo(g, m)).text,
    "permission: cancelled",
    "no reject-once option: refused without picking 'always'",
  );
});
