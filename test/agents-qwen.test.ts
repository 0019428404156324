// Qwen Code for real (contract §10.2): a relay whose `qwen` sessions run the pinned Qwen Code
// (on Node 20, though it declares 22) against a local chat-completions server, set up the way
// a Qwen user points it at any OpenAI-compatible endpoint: OPENAI_API_KEY, OPENAI_BASE_URL and
// OPENAI_MODEL in the relay's environment, and a second model in its settings.json. Qwen defers
// MCP tools: relay_tool is reviewed with `tool_search`, then called through `tool_call`.
import { TestRelay } from "./helpers/relay-process.ts";
import { FakeOpenAI } from "./helpers/fake-openai.ts";
import { agentRelayEnv, missingCli } from "./helpers/agent-clis.ts";
import { qwenAgent } from "./helpers/relay-plan-acp.ts";
import { cliSuite } from "./helpers/acp-cli-suite.ts";
import { qwenSetup } from "./helpers/cli-offline.ts";

const skip = missingCli("qwen");
let fake: FakeOpenAI;

cliSuite({
  provider: "qwen",
  name: "Qwen Code",
  skip,
  async start() {
    fake = await FakeOpenAI.start({ apiKey: "test-key", script: qwenAgent });
    const env = agentRelayEnv(["qwen"]);
    Object.assign(env, qwenSetup(env.HOME!, fake.baseUrl, "test-key"));
    const relay = await TestRelay.start({ env });
    return {
      relay,
      server: {
        modelsAsked: () => fake.calls.filter((c) => c.tools.length).map((c) => c.model),
        reset: () => fake.reset(),
        close: () => fake.close(),
      },
    };
  },
  models: { a: "gpt-test", b: "gpt-test-2" },
  capabilities: { loadSession: true, resume: true, images: true, mcpHttp: true },
  refusedKey: {
    refuse: () => void (fake.apiKey = "another-key"),
    restore: () => void (fake.apiKey = "test-key"),
    error: /^Qwen Code is not signed in on relay "desk": run `qwen`.* as \w+/,
  },
  signedOut: {
    env: () => agentRelayEnv(["qwen"]),
    reason: /^Qwen Code is not signed in on relay "bare": run `qwen` and sign in with \/auth .* as \w+/,
  },
});
