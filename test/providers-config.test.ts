// The pure parts of the provider layer: how relay settings map onto what a CLI advertised,
// and which environment a worker gets. (The same rules run through a real relay in
// providers-cli.test.ts; these pin the choices the real CLIs' answers lead to.)
import { test } from "node:test";
import assert from "node:assert/strict";
import { claude, claudeModelId } from "../src/providers/adapters/claude.ts";
import { copilot } from "../src/providers/adapters/copilot.ts";
import { grok } from "../src/providers/adapters/grok.ts";
import { allAdapters } from "../src/providers/adapters/index.ts";
import { workerEnv } from "../src/providers/adapters/env.ts";
import { codex } from "../src/providers/adapters/codex.ts";
import { launchSpec, signInFor } from "../src/providers/launch.ts";
import { agentPath, missingCli } from "./helpers/agent-clis.ts";
import {
  advertisedModels,
  cliModeFor,
  configCalls,
  currentModel,
  readAdvertisement,
} from "../src/providers/session-config.ts";

const sel = (id: string, category: string, current: string, values: string[], names: string[] = values) => ({
  id,
  category,
  type: "select",
  currentValue: current,
  options: values.map((value, i) => ({ value, name: names[i] })),
});
// Claude 0.101.0 as root without IS_SANDBOX: no bypass mode offered.
const claudeRoot = readAdvertisement({
  sessionId: "s",
  configOptions: [
    sel("mode", "mode", "auto", ["default", "acceptEdits", "plan", "auto"]),
    sel(
      "model",
      "model",
      "default",
      ["default", "opus", "sonnet", "haiku"],
      ["Default (recommended)", "Opus 5.5", "Sonnet 5.5", "Haiku 5.5"],
    ),
    sel("effort", "thought_level", "default", ["default", "low", "medium", "high", "xhigh", "max"]),
  ],
});

test("Claude: agent mode takes the most autonomous mode offered; models map to aliases; efforts match", () => {
  assert.equal(cliModeFor(claudeRoot, claude, "agent"), "auto", "no bypass offered: auto");
  assert.equal(cliModeFor(claudeRoot, claude, "ask"), "default");
  assert.equal(cliModeFor(claudeRoot, claude, "plan"), "plan");
  assert.deepEqual(advertisedModels(claudeRoot, claude), ["claude-opus-5-5", "claude-sonnet-5-5", "claude-haiku-5-5"]);
  assert.equal(claudeModelId({ id: "fable", name: "Fable 5.1" }), "claude-fable-5-1");
  assert.equal(currentModel(claudeRoot, claude), null, "the default entry is not a model of its own");
  assert.deepEqual(
    configCalls(claudeRoot, claude, { mode: "agent", model: "claude-sonnet-5-5", effort: "max" }, {}).map(
      (c) => c.what,
    ),
    ["mode auto", "model claude-sonnet-5-5", "effort max"],
  );
  const calls = configCalls(claudeRoot, claude, { mode: "agent", model: "claude-sonnet-5-5", effort: "max" }, {});
  assert.deepEqual(calls[1], {
    method: "session/set_config_option",
    configId: "model",
    value: "sonnet",
    what: "model claude-sonnet-5-5",
  });
  // Claude refuses full ids it did not list: an unlisted model is not forced on it.
  assert.deepEqual(
    configCalls(claudeRoot, claude, { mode: "agent", model: "claude-opus-4-1", effort: null }, { mode: "agent" }),
    [],
  );
  // Nothing changed: nothing to send.
  assert.deepEqual(
    configCalls(
      claudeRoot,
      claude,
      { mode: "ask", model: "claude-opus-5-5", effort: "low" },
      { mode: "ask", model: "claude-opus-5-5", effort: "low" },
    ),
    [],
  );
});

test("Copilot: URL mode ids by suffix, set_mode without a mode option, set_model without a model list", () => {
  const url = (m: string) => `https://agentclientprotocol.com/protocol/session-modes#${m}`;
  const ad = readAdvertisement({
    sessionId: "s",
    modes: {
      currentModeId: url("agent"),
      availableModes: ["agent", "plan", "autopilot"].map((m) => ({ id: url(m), name: m })),
    },
  });
  assert.equal(cliModeFor(ad, copilot, "agent"), url("agent"), "its agent mode, not autopilot");
  assert.deepEqual(configCalls(ad, copilot, { mode: "plan", model: "gpt-5.4", effort: "high" }, {}), [
    { method: "session/set_mode", modeId: url("plan"), what: `mode ${url("plan")}` },
    // It lists no models offline but takes any id by session/set_model.
    { method: "session/set_model", modelId: "gpt-5.4", what: "model gpt-5.4" },
  ]);
  assert.equal(
    copilot.replyFailure!(
      "Info: Retrying...Error: Authentication failed with provider at http://x/v1 (HTTP 401).\n  Check your key",
    ),
    "Error: Authentication failed with provider at http://x/v1 (HTTP 401).",
  );
  assert.equal(copilot.replyFailure!("All good."), null);
});

test("Grok: models from `models` and its model option; efforts to the nearest it has; no modes", () => {
  const ad = readAdvertisement({
    sessionId: "s",
    models: {
      currentModelId: "grok-4.6",
      availableModels: [
        { modelId: "grok-4.6", name: "Grok 4.6" },
        { modelId: "grok-4.5", name: "Grok 4.5" },
      ],
    },
    configOptions: [
      sel("model", "model", "grok-4.6", ["grok-4.6", "grok-4.5"]),
      sel("reasoning_effort", "thought_level", "high", ["xhigh", "high", "medium", "low"]),
    ],
  });
  assert.deepEqual(advertisedModels(ad, grok), ["grok-4.6", "grok-4.5"]);
  assert.equal(cliModeFor(ad, grok, "plan"), null);
  assert.deepEqual(
    configCalls(ad, grok, { mode: "plan", model: "grok-4.5", effort: "max" }, {}).map((c) => c.what),
    ["model grok-4.5", "effort xhigh"],
  );
  assert.deepEqual(
    configCalls(ad, grok, { mode: "agent", model: "grok-5", effort: null }, {}),
    [],
    "an unlisted model runs on its current one",
  );
  assert.equal(currentModel(ad, grok), "grok-4.6");
});

test("a worker's environment: the relay's, minus every other provider's secret variables and settings", () => {
  const settings = { claudeApiKey: "sk-owner", copilotToken: "ghu-owner", xaiApiKey: "xai-owner" };
  const base = {
    PATH: "/bin",
    GH_TOKEN: "gh",
    ANTHROPIC_API_KEY: "sk-env",
    XAI_API_KEY: "xai-env",
    DEEPSEEK_API_KEY: "ds",
    COPY_OF_KEY: "sk-owner",
    HOME: "/h",
  };
  const forGrok = workerEnv(grok, allAdapters(), settings, base);
  assert.deepEqual(forGrok, { PATH: "/bin", XAI_API_KEY: "xai-env", HOME: "/h" });
  const forCopilot = workerEnv(copilot, allAdapters(), settings, base);
  assert.deepEqual(forCopilot, { PATH: "/bin", GH_TOKEN: "gh", HOME: "/h" });
  const forClaude = workerEnv(claude, allAdapters(), settings, base);
  assert.deepEqual(forClaude, { PATH: "/bin", ANTHROPIC_API_KEY: "sk-env", HOME: "/h" });
});

test("Codex: its api-key sign-in is asked for only when its worker gets a key; a key kept from it is named in the sign-in words", {
  skip: missingCli("codex"),
}, () => {
  const saved = {
    PATH: process.env.PATH,
    CODEX_API_KEY: process.env.CODEX_API_KEY,
    OPENAI_API_KEY: process.env.OPENAI_API_KEY,
  };
  try {
    process.env.PATH = agentPath(["codex"]);
    delete process.env.CODEX_API_KEY;
    process.env.OPENAI_API_KEY = "sk-shared";
    // The owner's OpenAI Image key is the same one: another provider's secret, kept from Codex
    // (contract §9.2), so Codex must not be told to sign in with a key it does not get.
    const kept = launchSpec("codex", { openaiApiKey: "sk-shared" })!;
    assert.equal(kept.env.OPENAI_API_KEY, undefined);
    assert.equal(kept.env.DEFAULT_AUTH_REQUEST, undefined);
    assert.match(
      signInFor("codex", { openaiApiKey: "sk-shared" }),
      /^run `codex-acp login` .*; the relay's OPENAI_API_KEY is kept from Codex, .*set CODEX_API_KEY for Codex$/,
    );
    const given = launchSpec("codex", { openaiApiKey: "sk-image" })!;
    assert.equal(given.env.OPENAI_API_KEY, "sk-shared");
    assert.deepEqual(JSON.parse(given.env.DEFAULT_AUTH_REQUEST), { methodId: "api-key" });
    assert.equal(signInFor("codex", { openaiApiKey: "sk-image" }), codex.signIn);
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
});
