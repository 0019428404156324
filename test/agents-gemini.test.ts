// Gemini CLI for real (contract §10.2): a relay whose `gemini` sessions run the pinned Gemini
// CLI against a local Gemini API server (GOOGLE_GEMINI_BASE_URL + GEMINI_API_KEY in the
// relay's environment). Gemini offers relay_tool as `mcp_relay_relay_tool`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { TestRelay } from "./helpers/relay-process.ts";
import { FakeGemini } from "./helpers/fake-gemini.ts";
import { agentRelayEnv, missingCli } from "./helpers/agent-clis.ts";
import { geminiAgent } from "./helpers/relay-plan-acp.ts";
import { TURN_MS, say } from "./helpers/agents-e2e.ts";
import { cliSuite, probedProvider } from "./helpers/acp-cli-suite.ts";

const skip = missingCli("gemini");
let fake: FakeGemini;

const suite = cliSuite({
  provider: "gemini",
  name: "Gemini",
  skip,
  async start() {
    fake = await FakeGemini.start({ apiKey: "test-key", script: geminiAgent });
    const relay = await TestRelay.start({ env: agentRelayEnv(["gemini"], { GEMINI_API_KEY: "test-key", GOOGLE_GEMINI_BASE_URL: fake.baseUrl }) });
    return { relay, server: { modelsAsked: () => fake.mainCalls.map((c) => c.model), reset: () => fake.reset(), close: () => fake.close() } };
  },
  models: { a: "gemini-2.5-pro", b: "gemini-3.8-flash" },
  capabilities: { loadSession: true, resume: false, images: true, mcpHttp: true },
  cardKinds: ["allow_always", "allow_always", "allow_once", "reject_once"],
});

test("Gemini: a refused key ends the turn with the sign-in reason in words", { skip, timeout: 2 * TURN_MS }, async () => {
  const relay = suite.relay();
  fake.apiKey = "another-key";
  try {
    const reply = await say(relay, suite.session(), "Say hello.");
    assert.equal(reply.meta?.status, "error", reply.text);
    assert.match(reply.meta.error, /Gemini is not signed in on relay "desk": run `gemini`.* as \w+/);
  } finally {
    fake.apiKey = "test-key";
  }
});

test("Gemini: without a key it is unavailable with its own words counted as signed out, and a session is refused", { skip, timeout: 2 * TURN_MS }, async () => {
  const bare = await TestRelay.start({ name: "bare", env: agentRelayEnv(["gemini"]) });
  try {
    const p = await probedProvider(bare, "gemini");
    assert.equal(p.available, false);
    assert.match(p.reason, /^Gemini is not signed in on relay "bare": run `gemini` and choose Log in with Google .* as \w+/);
    // initialize answered before the sign-in failed: what it advertised is known.
    assert.equal(p.capabilities.loadSession, true);
    const refused = await bare.api("POST", "/api/sessions", { provider: "gemini", title: "unsigned" });
    assert.equal(refused.json.code, "REMOTE_RELAY_PROVIDER_UNAVAILABLE");
  } finally {
    await bare.stop();
  }
});
