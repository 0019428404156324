// opencode for real (contract §10.2): a relay whose `opencode` sessions run the pinned opencode
// against a local chat-completions server, added the way an opencode user adds any endpoint: a
// provider with a `baseURL` in its config (here the JSON in OPENCODE_CONFIG_CONTENT, to which
// the relay adds its "ask before every tool" rule). opencode offers relay_tool as `relay_relay_tool`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { TestRelay } from "./helpers/relay-process.ts";
import { FakeOpenAI } from "./helpers/fake-openai.ts";
import { agentRelayEnv, missingCli } from "./helpers/agent-clis.ts";
import { copilotAgent } from "./helpers/relay-plan.ts";
import { TURN_MS } from "./helpers/agents-e2e.ts";
import { cliSuite, probedProvider } from "./helpers/acp-cli-suite.ts";
import { OPENCODE_OFFLINE, opencodeConfig } from "./helpers/cli-offline.ts";

const skip = missingCli("opencode");
let fake: FakeOpenAI;

cliSuite({
  provider: "opencode",
  name: "opencode",
  skip,
  async start() {
    fake = await FakeOpenAI.start({ apiKey: "test-key", script: copilotAgent });
    const relay = await TestRelay.start({
      env: agentRelayEnv(["opencode"], {
        ...OPENCODE_OFFLINE,
        OPENCODE_CONFIG_CONTENT: opencodeConfig(fake.baseUrl, "test-key"),
      }),
    });
    // The agent loop's calls (with tools), not its title call.
    return {
      relay,
      server: {
        modelsAsked: () => fake.calls.filter((c) => c.tools.length).map((c) => `oar/${c.model}`),
        reset: () => fake.reset(),
        close: () => fake.close(),
      },
    };
  },
  models: { a: "oar/gpt-test", b: "oar/gpt-test-2" },
  capabilities: { loadSession: true, resume: true, images: true, mcpHttp: true },
  cardKinds: ["allow_always", "allow_once", "reject_once"],
  // It passes on the endpoint's "Incorrect API key provided" (-32603).
  refusedKey: {
    refuse: () => void (fake.apiKey = "another-key"),
    restore: () => void (fake.apiKey = "test-key"),
    error: /^opencode is not signed in on relay "desk": run `opencode auth login` as \w+/,
  },
});

test("opencode: with nobody signed in it serves its own free models, so it reads available", {
  skip,
  timeout: 2 * TURN_MS,
}, async () => {
  const bare = await TestRelay.start({ name: "bare", env: agentRelayEnv(["opencode"], OPENCODE_OFFLINE) });
  try {
    const p = await probedProvider(bare, "opencode");
    assert.equal(p.available, true, p.reason);
    assert.ok(
      p.models.length > 0 && p.models.every((m: string) => m.startsWith("opencode/")),
      JSON.stringify(p.models),
    );
  } finally {
    await bare.stop();
  }
});
