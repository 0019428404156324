// Codex for real (contract §10.2): a relay whose `codex` sessions run the pinned codex-acp
// (and the Codex CLI it drives) against a local Responses API server, set up the way a Codex
// user points it at any endpoint: a model provider in $CODEX_HOME/config.toml (here the
// agent HOME's ~/.codex) with `base_url` and `wire_api = "responses"`. Codex offers relay_tool
// as `relay_tool` in the namespace `mcp__relay`.
import { TestRelay } from "./helpers/relay-process.ts";
import { FakeResponses } from "./helpers/fake-responses.ts";
import { agentRelayEnv, missingCli } from "./helpers/agent-clis.ts";
import { codexAgent } from "./helpers/relay-plan-acp.ts";
import { cliSuite } from "./helpers/acp-cli-suite.ts";
import { codexConfig, codexTurnCall } from "./helpers/cli-offline.ts";

const skip = missingCli("codex");
let fake: FakeResponses;

cliSuite({
  provider: "codex",
  name: "Codex",
  skip,
  async start() {
    fake = await FakeResponses.start({ apiKey: "test-key", script: codexAgent });
    const env = agentRelayEnv(["codex"], { OAR_TEST_MODEL_KEY: "test-key" });
    codexConfig(env.HOME!, fake.baseUrl);
    const relay = await TestRelay.start({ env });
    // The agent loop's calls (they carry its environment context), not its side calls (a title).
    return {
      relay,
      server: {
        modelsAsked: () => fake.calls.filter(codexTurnCall).map((c) => c.model),
        lastSent: () => JSON.stringify(fake.calls.filter(codexTurnCall).at(-1)?.input ?? []),
        reset: () => fake.reset(),
        close: () => fake.close(),
      },
    };
  },
  // For the models it knows Codex defers MCP tools behind its `tool_search`, or (gpt-6-luna)
  // offers them only through a JavaScript `exec` tool; neither is what this fake model
  // speaks, so the turns that call relay_tool run on a model it does not know (it then
  // prefixes a warning about its missing metadata and offers the tools directly), and the
  // model change comes last.
  models: { a: "gpt-test", b: "gpt-6-luna" },
  capabilities: { loadSession: true, resume: true, images: true, mcpHttp: true },
  cardKinds: ["allow_always", "allow_always", "allow_once", "reject_once"],
  resumesThrough: "session/resume",
  refusedKey: {
    refuse: () => void (fake.apiKey = "another-key"),
    restore: () => void (fake.apiKey = "test-key"),
    error: /^Codex is not signed in on relay "desk": run `codex-acp login`.* as \w+/,
  },
  signedOut: {
    env: () => agentRelayEnv(["codex"]),
    reason: /^Codex is not signed in on relay "bare": run `codex-acp login` .* as \w+/,
  },
});
