// A custom ACP agent for real (contract §10.2): the pinned Codex ACP adapter configured by the
// owner as `my-codex` (setting customAgents: its command, and its model key as a secret
// environment value), against the local Responses API server. It runs through the same cases
// as the built-in providers: probe, relay_tool, cards, the keeper across a SIGKILL, a model change.
import { test } from "node:test";
import assert from "node:assert/strict";
import { TestRelay } from "./helpers/relay-process.ts";
import { FakeResponses } from "./helpers/fake-responses.ts";
import { agentRelayEnv, binPath, missingCli } from "./helpers/agent-clis.ts";
import { codexAgent } from "./helpers/relay-plan-acp.ts";
import { cliSuite } from "./helpers/acp-cli-suite.ts";
import { codexConfig, codexTurnCall } from "./helpers/cli-offline.ts";

const skip = missingCli("codex");
const KEY = "custom-agent-model-key-7781";
let fake: FakeResponses;

const suite = cliSuite({
  provider: "my-codex",
  name: "My Codex",
  skip,
  async start() {
    fake = await FakeResponses.start({ apiKey: KEY, script: codexAgent });
    // Nothing of Codex on the relay's PATH or in its environment: the setting alone runs it.
    const env = agentRelayEnv([]);
    codexConfig(env.HOME!, fake.baseUrl, "gpt-test", "MY_MODEL_KEY");
    const relay = await TestRelay.start({ env });
    const saved = await relay.api("PATCH", "/api/settings", {
      customAgents: [
        { id: "my-codex", name: "My Codex", command: binPath("codex"), args: [], env: { MY_MODEL_KEY: KEY } },
      ],
    });
    assert.equal(saved.status, 200, JSON.stringify(saved.json));
    return {
      relay,
      server: {
        modelsAsked: () => fake.calls.filter(codexTurnCall).map((c) => c.model),
        reset: () => fake.reset(),
        close: () => fake.close(),
      },
    };
  },
  models: { a: "gpt-test", b: "gpt-6-luna" },
  capabilities: { loadSession: true, resume: true, images: true, mcpHttp: true },
  cardKinds: ["allow_always", "allow_always", "allow_once", "reject_once"],
});

test("My Codex: its secret environment value reached the agent (the model server saw the key) and shows nowhere", {
  skip,
}, async () => {
  const relay = suite.relay();
  assert.ok(fake.calls.length > 0 && fake.calls.every((c) => c.authorized));
  const settings = await relay.api("GET", "/api/settings");
  assert.deepEqual(settings.json.customAgents[0].env, { MY_MODEL_KEY: "****" });
  const session = await relay.session(suite.session());
  for (const text of [
    JSON.stringify(settings.json),
    JSON.stringify((await relay.api("GET", "/api/providers")).json),
    JSON.stringify(session),
    relay.output,
  ]) {
    assert.ok(!text.includes(KEY));
  }
});
