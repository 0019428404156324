// Gemini CLI for real (contract §10.2): a relay whose `gemini` sessions run the pinned Gemini
// CLI against a local Gemini API server (GOOGLE_GEMINI_BASE_URL + GEMINI_API_KEY in the
// relay's environment). Gemini offers relay_tool as `mcp_relay_relay_tool`.
import { TestRelay } from "./helpers/relay-process.ts";
import { FakeGemini } from "./helpers/fake-gemini.ts";
import { agentRelayEnv, missingCli } from "./helpers/agent-clis.ts";
import { geminiAgent } from "./helpers/relay-plan-acp.ts";
import { cliSuite } from "./helpers/acp-cli-suite.ts";

const skip = missingCli("gemini");
let fake: FakeGemini;

cliSuite({
  provider: "gemini",
  name: "Gemini",
  skip,
  async start() {
    fake = await FakeGemini.start({ apiKey: "test-key", script: geminiAgent });
    const relay = await TestRelay.start({
      env: agentRelayEnv(["gemini"], { GEMINI_API_KEY: "test-key", GOOGLE_GEMINI_BASE_URL: fake.baseUrl }),
    });
    return {
      relay,
      server: {
        modelsAsked: () => fake.mainCalls.map((c) => c.model),
        reset: () => fake.reset(),
        close: () => fake.close(),
      },
    };
  },
  models: { a: "gemini-2.5-pro", b: "gemini-3.8-flash" },
  capabilities: { loadSession: true, resume: false, images: true, mcpHttp: true },
  cardKinds: ["allow_always", "allow_always", "allow_once", "reject_once"],
  refusedKey: {
    refuse: () => void (fake.apiKey = "another-key"),
    restore: () => void (fake.apiKey = "test-key"),
    error: /Gemini is not signed in on relay "desk": run `gemini`.* as \w+/,
  },
  // Its own words for a missing key ("Gemini API key is missing or not configured.") count as signed out.
  signedOut: {
    env: () => agentRelayEnv(["gemini"]),
    reason: /^Gemini is not signed in on relay "bare": run `gemini` and choose Log in with Google .* as \w+/,
  },
});
