// Custom ACP agents (contract §10.2, setting customAgents) with the protocol-faithful fake ACP
// agent as their command: the setting's rules (ids, secrets masked and kept on PATCH `****`),
// a custom agent as a provider everywhere (relay_info with capabilities, sessions, a turn),
// its secrets reaching its process and nowhere else, and the reasons it can be unavailable.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { TestRelay } from "./helpers/relay-process.ts";
import { fakeCliDir } from "./helpers/fake-cli.ts";
import { hash } from "./helpers/fake-acp-agent-hash.ts";
import { probedProvider } from "./helpers/acp-cli-suite.ts";

const SECRET = "s3cret-token-value-42";
let relay: TestRelay;
let command: string;

before(async () => {
  // The fake agent in its Copilot profile: it advertises a sign-in method.
  command = join(fakeCliDir({ only: ["copilot"] }), "copilot");
  relay = await TestRelay.start();
});
after(async () => {
  await relay?.stop();
});

const patch = (customAgents: unknown) => relay.api("PATCH", "/api/settings", { customAgents });
const providers = async () => (await relay.api("GET", "/api/providers")).json.providers;

test("customAgents: a bad entry is refused with a coded error and changes nothing", async () => {
  const good = { id: "team-agent", name: "Team agent", command, args: [], env: {} };
  for (const [bad, words] of [
    [[{ ...good, id: "Team" }], /entry 1 field id: an id is 2 to 31 lowercase letters/],
    [[{ ...good, id: "claude" }], /entry 1 field id: that id is a built-in provider's/],
    [[good, { ...good }], /each custom agent needs its own id/],
    [[{ ...good, command: "" }], /entry 1 field command/],
    [[{ ...good, env: { "BAD-NAME": "x" } }], /entry 1 field env/],
    [
      [{ ...good, env: { TOKEN: "****" } }],
      /variable TOKEN: each value must be text \(`\*\*\*\*` keeps a value already stored\)/,
    ],
  ] as const) {
    const r = await patch(bad);
    assert.equal(r.status, 400, JSON.stringify(r.json));
    assert.equal(r.json.code, "REMOTE_RELAY_INVALID_INPUT");
    assert.match(r.json.error, words);
    assert.match(r.json.error, /Nothing was changed\.$/);
  }
  assert.deepEqual((await relay.api("GET", "/api/settings")).json.customAgents, []);
});

test("a custom agent is a provider everywhere; its secret reaches its process only, shown as **** and kept on PATCH ****", async () => {
  const saved = await patch([{ id: "team-agent", name: "Team agent", command, args: [], env: { TEAM_TOKEN: SECRET } }]);
  assert.equal(saved.status, 200, JSON.stringify(saved.json));
  assert.deepEqual(saved.json.customAgents, [
    { id: "team-agent", name: "Team agent", command, args: [], env: { TEAM_TOKEN: "****" } },
  ]);
  // The owner's form sends back what it was shown: the value stays.
  assert.equal((await patch(saved.json.customAgents)).status, 200);

  const p = await probedProvider(relay, "team-agent");
  assert.equal(p.available, true, p.reason);
  assert.deepEqual(p.capabilities, { loadSession: false, resume: false, images: false, mcpHttp: true });
  const info = await (await relay.mcp(await relay.createSession({ title: "Asker" }))).call({
    action: "relay_info",
    relay: "this",
  });
  const listed = info.providers.find((x: any) => x.id === "team-agent");
  assert.equal(listed.name, "Team agent");
  assert.equal(listed.available, true);
  assert.deepEqual(listed.capabilities, p.capabilities);
  assert.ok(info.providers.find((x: any) => x.id === "gemini").capabilities, "every provider has capabilities");

  const session = await relay.createSession({ provider: "team-agent", title: "Custom" });
  const reply = await relay.say(session, "/env TEAM_TOKEN", 60_000);
  assert.match(reply.text, new RegExp(`TEAM_TOKEN=${hash(SECRET)}`));
  const listing = await relay.api("GET", "/api/sessions?provider=team-agent");
  assert.equal(listing.json.sessions.length, 1);

  // Never in what the relay shows or logs.
  for (const text of [
    JSON.stringify((await relay.api("GET", "/api/settings")).json),
    JSON.stringify(await providers()),
    JSON.stringify(info),
    relay.output,
  ]) {
    assert.ok(!text.includes(SECRET));
  }
});

test("a custom agent whose command is missing is unavailable with that reason, and sessions on it are refused", async () => {
  assert.equal(
    (await patch([{ id: "gone-agent", name: "Gone", command: "/nowhere/agent-acp", args: ["acp"], env: {} }])).status,
    200,
  );
  const p = (await providers()).find((x: any) => x.id === "gone-agent");
  assert.equal(p.available, false);
  assert.match(p.reason, /^Gone's command `\/nowhere\/agent-acp` was not found on this relay/);
  const refused = await relay.api("POST", "/api/sessions", { provider: "gone-agent", title: "nope" });
  assert.equal(refused.json.code, "REMOTE_RELAY_PROVIDER_UNAVAILABLE");
  // The removed team-agent is no provider any more.
  assert.equal(
    (await providers()).some((x: any) => x.id === "team-agent"),
    false,
  );
});

test("a custom agent that advertises sign-in and answers session/new 'authentication required' is not signed in", async () => {
  assert.equal(
    (await patch([{ id: "locked-agent", name: "Locked", command, args: [], env: { FAKE_ACP_SIGNED_OUT: "1" } }]))
      .status,
    200,
  );
  const p = await probedProvider(relay, "locked-agent");
  assert.equal(p.available, false);
  assert.match(
    p.reason,
    /^Locked is not signed in on relay "desk": sign in to Locked the way its own documentation says/,
  );
});
