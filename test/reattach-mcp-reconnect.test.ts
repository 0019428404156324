// A Claude agent a restarted relay took back is asked to reconnect relay_tool before its next
// prompt (the adapter's `reconnectMcp`: `/mcp reconnect relay`), as the relay's own step: the
// owner's conversation shows nothing of it. Here Claude runs on the scripted agent
// (OAR_FAKE_PROVIDERS), which answers that command with words of its own ("unknown
// directive"), so a leak would show in the reply; the real CLI is in agents-mcp-resume.test.ts.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { TestRelay } from "./helpers/relay-process.ts";
import { workerPids } from "./helpers/core-helpers.ts";

let relay: TestRelay;
before(async () => {
  relay = await TestRelay.start({ env: { OAR_FAKE_PROVIDERS: "claude" } });
});
after(() => relay.stop());

const asked = () =>
  relay.output.split("\n").filter((l) => l.includes("asked to reconnect relay_tool after the relay restart"));

test("after a restart, a kept Claude worker is asked to reconnect once, before its next prompt, unseen in the conversation", async () => {
  const claude = await relay.createSession({ provider: "claude", title: "Claude" });
  const plain = await relay.createSession({ provider: "scripted", title: "Scripted" });
  assert.equal((await relay.say(claude, "/reply one")).text, "one");
  assert.equal((await relay.say(plain, "/reply one")).text, "one");
  const pids = workerPids(relay);

  await relay.restart({ samePort: true });
  const two = await relay.say(claude, "/reply two");
  assert.equal(two.text, "two", "nothing of the reconnect step in the reply");
  assert.equal(two.meta?.activity, undefined, JSON.stringify(two.meta));
  assert.deepEqual(workerPids(relay).sort(), pids.sort(), "the same agent processes (taken back, not restarted)");
  assert.equal(asked().length, 1, relay.output.slice(-2000));
  assert.match(asked()[0], /: done \(\d+ ms\); it said: unknown directive: \/mcp$/, "its words went to the log");

  // Once per restart, and only for an adapter that needs it (the scripted agent does not).
  assert.equal((await relay.say(claude, "/reply three")).text, "three");
  assert.equal((await relay.say(plain, "/reply two")).text, "two");
  assert.equal(asked().length, 1);
  const roles = (await relay.session(claude)).messages.map((m: any) => m.role);
  assert.deepEqual(roles, ["user", "agent", "user", "agent", "user", "agent"]);
});
