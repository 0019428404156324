// Availability you can trust (contract §9.2): `available` means installed AND signed in, from
// a cached probe per provider (initialize, sign-in status, a trial session/new); the reason
// names the command to run as the relay's user. GET /api/providers lists the entries with
// `checkedAt`; POST /api/providers/:id/check probes again; a turn failing on sign-in and a
// changed provider setting probe again too. And the maxWorkers cap (contract §9.3).
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { userInfo } from "node:os";
import { TestRelay } from "./helpers/relay-process.ts";
import { fakeCliDir, withEnv } from "./helpers/fake-cli.ts";

let relay: TestRelay;
const me = userInfo().username;

before(async () => {
  const dir = fakeCliDir({ signedOut: ["claude", "copilot"] });
  relay = await withEnv({ PATH: `${dir}:${process.env.PATH}` }, () =>
    TestRelay.start({ settings: { claudeApiKey: "sk-ant-probe-0001", maxWorkers: 2 } }),
  );
  await relay.waitFor(
    async () =>
      (await relay.api("GET", "/api/providers")).json.providers.filter(
        (p: any) => ["claude", "claude-api", "copilot", "grok"].includes(p.id) && p.checkedAt,
      ).length === 4,
    90_000,
  );
});
after(() => relay.stop());

const providers = async () =>
  Object.fromEntries((await relay.api("GET", "/api/providers")).json.providers.map((p: any) => [p.id, p]));
const create = async (body: Record<string, unknown>) => {
  const r = await relay.api("POST", "/api/sessions", { title: "t", ...body });
  assert.equal(r.status, 201, JSON.stringify(r.json));
  return r.json.id as string;
};

test("installed but not signed in: unavailable, with the command to run as the relay's user", async () => {
  const p = await providers();
  assert.equal(p.copilot.available, false);
  assert.equal(
    p.copilot.reason,
    `Copilot is not signed in on relay "desk": run \`copilot login\` (or add a Copilot token in Settings → Providers) as ${me}`,
  );
  // Claude answers session/new signed out; its sign-in status says so.
  assert.equal(p.claude.available, false);
  assert.equal(
    p.claude.reason,
    `Claude is not signed in on relay "desk": run \`claude-agent-acp --cli\` and sign in with /login as ${me}`,
  );
  assert.equal(p["claude-api"].available, false);
  assert.equal(p.grok.available, true);
  assert.ok(!Number.isNaN(Date.parse(p.grok.checkedAt)));
  assert.deepEqual(p.copilot.setUp, [
    "Install: npm i -g @github/copilot",
    "Sign in: run `copilot login` (or add a Copilot token in Settings → Providers)",
  ]);
  assert.equal(p.scripted.available, true);
  assert.equal(p.scripted.checkedAt, null, "nothing to probe");

  const mcp = await relay.mcp(await relay.createSession({ title: "asker" }));
  const info = await mcp.call({ action: "relay_info", relay: "this" });
  assert.equal(info.providers.find((x: any) => x.id === "copilot").reason, p.copilot.reason);
  const refused = await mcp.call({
    action: "create_session",
    relay: "this",
    provider: "copilot",
    cwd: "/tmp",
    text: "hi",
  });
  assert.equal(refused.code, "REMOTE_RELAY_PROVIDER_UNAVAILABLE");
  assert.match(refused.error, /Copilot is not signed in on relay "desk": run `copilot login`/);
});

test("the owner's check probes again; a changed provider setting does too", async () => {
  const before = (await providers()).copilot.checkedAt;
  await relay.advance(60_000);
  const checked = await relay.api("POST", "/api/providers/copilot/check");
  assert.equal(checked.status, 200);
  assert.equal(checked.json.id, "copilot");
  assert.equal(checked.json.available, false);
  assert.ok(Date.parse(checked.json.checkedAt) > Date.parse(before), "checked again");
  assert.equal((await relay.api("POST", "/api/providers/nope/check")).status, 404);

  await relay.advance(60_000);
  await relay.api("PATCH", "/api/settings", { copilotToken: "ghu_new_token_0001" });
  await relay.waitFor(
    async () => Date.parse((await providers()).copilot.checkedAt) > Date.parse(checked.json.checkedAt),
  );
});

test("a turn failing on sign-in probes the provider again", async () => {
  const g = await create({ provider: "grok" });
  const before = (await providers()).grok.checkedAt;
  await relay.advance(60_000);
  const reply = await relay.say(g, "/fail auth");
  assert.match(reply.text, /^Error: Grok is not signed in/);
  await relay.waitFor(async () => Date.parse((await providers()).grok.checkedAt) > Date.parse(before));
  // It still looks signed in to the probe, so its credentials must have been refused: unavailable until checked.
  const p = await relay.waitFor(async () => (await providers()).grok.reason && (await providers()).grok);
  assert.equal(p.available, false);
  assert.match(
    p.reason,
    /^Grok is not signed in on relay "desk": .* \(its credentials were refused at the last turn\)$/,
  );
  assert.equal(
    (await relay.api("POST", "/api/providers/grok/check")).json.available,
    true,
    "the owner's check clears it",
  );
});

test("maxWorkers: at the cap the idle worker unused longest makes room; with all busy a turn waits", async () => {
  const pid = async (id: string) => (await relay.say(id, "/pid")).text;
  const [a, b, c] = [
    await create({ provider: "grok" }),
    await create({ provider: "grok" }),
    await create({ provider: "grok" }),
  ];
  const pa = await pid(a);
  const pb = await pid(b);
  const pc = await pid(c); // a's worker (idle longest) was stopped for c's
  assert.notEqual(await pid(a), pa, "a got a fresh worker: its old one was stopped at the cap");
  assert.equal(await pid(c), pc, "c kept its worker (b was the idle one unused longest)");
  assert.notEqual(await pid(b), pb);

  // Two workers busy (each waits on a permission card): a third turn waits for room.
  await relay.api("PATCH", `/api/sessions/${a}`, { mode: "ask" });
  await relay.api("PATCH", `/api/sessions/${b}`, { mode: "ask" });
  await relay.api("POST", `/api/sessions/${a}/messages`, { text: "/permission x" });
  await relay.api("POST", `/api/sessions/${b}/messages`, { text: "/permission y" });
  const cards = await relay.waitFor(async () => {
    const list = (await relay.api("GET", "/api/cards")).json.cards.filter((k: any) => k.kind === "permission");
    return list.length === 2 && list;
  });
  const agentMessages = async () => (await relay.session(c)).messages.filter((x: any) => x.role === "agent").length;
  const before = await agentMessages();
  await relay.api("POST", `/api/sessions/${c}/messages`, { text: "/pid" });
  const replied = async () => (await agentMessages()) > before;
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal(await replied(), false, "no room while both workers are busy");
  await relay.api("POST", `/api/cards/${cards[0].id}`, { decision: "allow" });
  await relay.waitFor(replied);
  await relay.api("POST", `/api/cards/${cards[1].id}`, { decision: "allow" });
});
