import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { TestRelay } from "./helpers/relay-process.ts";

let relay: TestRelay;
before(async () => {
  relay = await TestRelay.start();
});
after(() => relay.stop());

test("an owner message runs a scripted turn and the reply is stored", async () => {
  const id = await relay.createSession({ title: "echo" });
  const reply = await relay.say(id, "hello\n/reply second");
  assert.equal(reply.text, "second\necho: hello");
});

test("send from one session to another waits for the reply", async () => {
  const a = await relay.createSession({ title: "A" });
  const b = await relay.createSession({ title: "B" });
  const mcp = await relay.mcp(a);
  const r = await mcp.call({ action: "send", relay: "this", session: b, text: "ping" });
  assert.equal(r.ok, true, JSON.stringify(r));
  assert.equal(r.status, "done");
  assert.match(
    r.reply.text,
    /^echo: \[Prompt from an agent on this relay · session "A" · scripted-1 · acting for the user\]\nping$/,
  );
  const sb = await relay.session(b);
  const prompt = sb.messages.find((m: any) => m.role === "user");
  assert.deepEqual(prompt.from, { relay: "desk", session: a, title: "A", model: "scripted-1" });
});
