// Qwen Code's relay_tool retry (adapter `mcpRetry`) is bounded in all: with the fake ACP agent
// on PATH as `qwen`, an agent that never connects the relay's MCP server (it says so on stderr
// and takes Qwen's `…/mcp/reload` without connecting), the first prompt still goes out after
// the bounded wait, and the session's agentStart note says relay_tool was not available.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { TestRelay } from "./helpers/relay-process.ts";
import { fakeCliDir, withEnv } from "./helpers/fake-cli.ts";

let relay: TestRelay;

before(async () => {
  const dir = fakeCliDir({ only: ["qwen"] });
  relay = await withEnv({ PATH: `${dir}:${process.env.PATH}` }, () => TestRelay.start());
  await relay.waitFor(
    async () => (await relay.api("GET", "/api/providers")).json.providers.find((p: any) => p.id === "qwen")?.checkedAt,
    90_000,
  );
});
after(() => relay.stop());

test("an agent that never connects relay_tool: the first prompt goes out and the session's note says relay_tool was not available", async () => {
  const id = await relay.createSession({ provider: "qwen", model: "qwen-test", mode: "agent", title: "no tool" });
  // The bound is 30 s in all; before it was up to ~4 min (60 s for its start, then 60 s per ask, 3 asks).
  const reply = await relay.say(id, "/reloads", 90_000);
  assert.match(reply.text, /^reloads: [1-3]$/, "the relay asked the agent to connect again");
  const s = await relay.session(id);
  assert.equal(s.agentStart.how, "new");
  assert.match(
    s.agentStart.note,
    /^relay_tool was not available: the agent did not connect to the relay's MCP server within 30 s \(asked [1-3] time\(s\) to connect again: still without relay_tool\); the prompt went out without it$/,
  );
  // Later prompts go out at once: the relay asks once per worker.
  assert.match((await relay.say(id, "/reloads", 20_000)).text, /^reloads: [1-3]$/);
  assert.equal((await relay.session(id)).agentStart.note, s.agentStart.note);
});
