import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { RelayError } from "../src/core/errors.ts";
import { CATALOG, PROVIDER_IDS, providerAvailability, which } from "../src/providers/catalog.ts";
import { checkModel, suggestModels } from "../src/providers/model-check.ts";

const send = { relayName: "build-box", action: "send" } as const;
const create = { relayName: "build-box", action: "create_session" } as const;
const update = { relayName: "build-box", action: "update_session" } as const;

/** Runs `fn`, expects a RelayError, and returns it for closer checks. */
function refusal(fn: () => unknown): RelayError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof RelayError, `expected RelayError, got ${String(err)}`);
    return err;
  }
  assert.fail("expected a refusal");
}

test("catalog lists every contract provider with a listed default and max only for Claude", () => {
  assert.deepEqual(Object.keys(CATALOG), [...PROVIDER_IDS]);
  assert.deepEqual(
    PROVIDER_IDS.map((id) => CATALOG[id].name),
    [
      "Claude",
      "Claude API",
      "Claude Cloud",
      "Copilot",
      "Grok",
      "DeepSeek",
      "OpenAI Image",
      "Scripted",
      "OpenAI-compatible",
      "Gemini",
      "Codex",
      "opencode",
      "Qwen Code",
    ],
  );
  for (const p of Object.values(CATALOG)) {
    // openai-compatible has no list until its endpoint is asked (models: null).
    if (p.models !== null) assert.ok(p.models.includes(p.defaultModel), `${p.id} default is listed`);
    assert.equal(p.efforts.includes("max"), p.id.startsWith("claude"), `${p.id} max effort`);
  }
  assert.equal(CATALOG.scripted.defaultModel, "scripted-1");
  assert.ok(
    CATALOG.copilot.models?.every((m) => !/^claude-.*\d-\d/.test(m)),
    "Copilot ids use dots",
  );
});

test("availability: scripted always, CLIs by PATH, key providers by setting", () => {
  const none = { settings: {}, which: () => false };
  assert.deepEqual(providerAvailability("scripted", none), { available: true });
  assert.deepEqual(providerAvailability("claude", none), {
    available: false,
    reason: "claude-agent-acp is not installed on this relay (npm i -g @agentclientprotocol/claude-agent-acp)",
  });
  assert.equal(
    providerAvailability("copilot", none).reason,
    "copilot is not installed on this relay (npm i -g @github/copilot)",
  );
  assert.deepEqual(providerAvailability("claude-api", none), {
    available: false,
    reason: "Claude API is not set up on this relay: add an API key in Settings → Providers",
  });
  assert.equal(
    providerAvailability("claude-cloud", none).reason,
    "Claude Cloud is not set up on this relay: add a cloud token in Settings → Providers",
  );
  assert.equal(
    providerAvailability("deepseek", { settings: { deepseekApiKey: "  " }, which: () => false }).available,
    false,
  );

  const asked: string[] = [];
  const all = {
    settings: {
      claudeApiKey: "sk",
      claudeCloudToken: "t",
      deepseekApiKey: "k",
      openaiApiKey: "k",
      openaiCompatibleBaseUrl: "http://127.0.0.1:1/v1",
    },
    which: (c: string) => {
      asked.push(c);
      return true;
    },
  };
  for (const id of PROVIDER_IDS) assert.deepEqual(providerAvailability(id, all), { available: true }, id);
  // Claude API and Claude Cloud run through the Claude adapter, so they need that binary too.
  assert.deepEqual(asked.sort(), [
    "claude-agent-acp",
    "claude-agent-acp",
    "claude-agent-acp",
    "codex-acp",
    "copilot",
    "gemini",
    "grok",
    "opencode",
    "qwen",
  ]);
  // Contract §10.2: the four ACP CLIs are installed by their own commands.
  assert.equal(
    providerAvailability("gemini", none).reason,
    "gemini is not installed on this relay (npm i -g @google/gemini-cli)",
  );
  assert.equal(
    providerAvailability("codex", none).reason,
    "codex-acp is not installed on this relay (npm i -g @agentclientprotocol/codex-acp)",
  );
  assert.equal(
    providerAvailability("opencode", none).reason,
    "opencode is not installed on this relay (npm i -g opencode-ai)",
  );
  assert.equal(
    providerAvailability("qwen", none).reason,
    "qwen is not installed on this relay (npm i -g @qwen-code/qwen-code)",
  );
  assert.equal(providerAvailability("goose", all).available, false);
});

test("default which finds executables on PATH only", () => {
  const dir = mkdtempSync(join(tmpdir(), "oar-which-"));
  const saved = process.env.PATH;
  try {
    writeFileSync(join(dir, "fake-agent"), "#!/bin/sh\n");
    chmodSync(join(dir, "fake-agent"), 0o755);
    writeFileSync(join(dir, "not-exec"), "");
    chmodSync(join(dir, "not-exec"), 0o644);
    process.env.PATH = dir;
    assert.equal(which("fake-agent"), true);
    assert.equal(which("not-exec"), false);
    assert.equal(which("absent"), false);
    assert.equal(providerAvailability("grok", { settings: {} }).available, false);
  } finally {
    process.env.PATH = saved;
    rmSync(dir, { recursive: true, force: true });
  }
});

test("listed model passes; empty or missing model takes the default without a note", () => {
  assert.deepEqual(checkModel("copilot", "gpt-5.4", send), { model: "gpt-5.4" });
  assert.deepEqual(checkModel("claude", undefined, create), { model: "claude-opus-5-5" });
  assert.deepEqual(checkModel("scripted", "  ", send), { model: "scripted-1" });
  assert.deepEqual(checkModel("copilot", "", update), { model: "claude-sonnet-5.5" });
});

test("unknown model: spec message, suggestions and models", () => {
  const err = refusal(() => checkModel("copilot", "gpt-5-4", send));
  assert.equal(err.code, "REMOTE_RELAY_UNKNOWN_MODEL");
  assert.equal(
    err.message,
    `Unknown model 'gpt-5-4' for Copilot on relay "build-box"; did you mean 'gpt-5.4'? Valid ids: claude-opus-5.5, claude-sonnet-5.5, gpt-5.4, gpt-5.4-mini, gemini-3-pro. Nothing was sent.`,
  );
  assert.deepEqual(err.extra, {
    suggestions: ["gpt-5.4"],
    models: ["claude-opus-5.5", "claude-sonnet-5.5", "gpt-5.4", "gpt-5.4-mini", "gemini-3-pro"],
  });
  assert.deepEqual(err.toJSON().suggestions, ["gpt-5.4"]);
});

test("unknown model ends by action, and drops 'did you mean' without suggestions", () => {
  const created = refusal(() => checkModel("grok", "grok-4", create));
  assert.equal(
    created.message,
    `Unknown model 'grok-4' for Grok on relay "build-box"; did you mean 'grok-5'? Valid ids: grok-5, grok-5-fast. Nothing was created.`,
  );
  const changed = refusal(() => checkModel("deepseek", "llama-4", update));
  assert.equal(
    changed.message,
    `Unknown model 'llama-4' for DeepSeek on relay "build-box". Valid ids: deepseek-v4, deepseek-v4-reasoner. Nothing was changed.`,
  );
  assert.deepEqual(changed.extra.suggestions, []);
  const several = refusal(() => checkModel("scripted", "scripted-3", send));
  assert.match(several.message, /; did you mean 'scripted-1' or 'scripted-2'\? /);
  // Copilot's dot form is not Claude's: it is a plain typo there, not another provider.
  const dotted = refusal(() => checkModel("claude", "claude-opus-5.5", create));
  assert.equal(dotted.code, "REMOTE_RELAY_UNKNOWN_MODEL");
  assert.equal((dotted.extra.suggestions as string[])[0], "claude-opus-5-5");
});

test("suggestions: normalised dots, hyphens and case first, ratio 0.4, at most 3", () => {
  assert.deepEqual(suggestModels("GPT_5.4", ["gpt-5.4-mini", "gpt-5.4"]), ["gpt-5.4"]);
  assert.deepEqual(suggestModels("Claude-Opus-5-5", ["claude-sonnet-5.5", "claude-opus-5.5"]), [
    "claude-opus-5.5",
    "claude-sonnet-5.5",
  ]);
  assert.deepEqual(suggestModels("abc", ["xyz"]), []);
  assert.equal(suggestModels("m-1", ["m-1", "m-2", "m-3", "m-4"]).length, 3);
  assert.equal(suggestModels("m-1", ["m-2", "m-1"])[0], "m-1");
});

test("Copilot refuses Claude's hyphen ids with the nearest dotted id", () => {
  const err = refusal(() => checkModel("copilot", "claude-opus-5-5", send));
  assert.equal(err.code, "COPILOT_MODEL_UNAVAILABLE");
  assert.equal(
    err.message,
    "Copilot has no model 'claude-opus-5-5'; the nearest Copilot model is 'claude-opus-5.5' (Copilot ids use dots). Nothing was sent.",
  );
  assert.equal((err.extra.suggestions as string[])[0], "claude-opus-5.5");
  assert.deepEqual(err.extra.models, CATALOG.copilot.models);
  // The session stays on Copilot: update_session gets the same refusal, never a provider change.
  const upd = refusal(() => checkModel("copilot", "claude-opus-5-5", update));
  assert.equal(upd.code, "COPILOT_MODEL_UNAVAILABLE");
  assert.match(upd.message, /Nothing was changed\.$/);
  // Hyphenated Claude form no provider lists is still Copilot's refusal, also in create_session.
  assert.equal(refusal(() => checkModel("copilot", "claude-opus-5-4", create)).code, "COPILOT_MODEL_UNAVAILABLE");
});

test("Copilot refuses another provider's id", () => {
  const err = refusal(() => checkModel("copilot", "grok-5", create));
  assert.equal(err.code, "COPILOT_MODEL_UNAVAILABLE");
  assert.equal(
    err.message,
    "Copilot has no model 'grok-5'; it is a Grok model id. Valid ids: claude-opus-5.5, claude-sonnet-5.5, gpt-5.4, gpt-5.4-mini, gemini-3-pro. Nothing was created.",
  );
});

test("create_session on Copilot with an id only Claude lists needs the Claude provider", () => {
  const err = refusal(() => checkModel("copilot", "claude-opus-5-5", create));
  assert.equal(err.code, "CLAUDE_PROVIDER_REQUIRED");
  assert.equal(
    err.message,
    `Model 'claude-opus-5-5' is a Claude model; start the session with provider "claude" (or "claude-api"). Nothing was created.`,
  );
  assert.deepEqual(err.extra.providers, ["claude", "claude-api"]);
  // Only the providers that list it are named.
  const only = refusal(() => checkModel("copilot", "claude-opus-5-5", { ...create, catalogs: { "claude-api": [] } }));
  assert.equal(
    only.message,
    `Model 'claude-opus-5-5' is a Claude model; start the session with provider "claude". Nothing was created.`,
  );
});

test("a provider without a model list passes the model unchecked with a note", () => {
  const r = checkModel("copilot", "gpt-9", { ...send, catalogs: { copilot: null } });
  assert.deepEqual(r, {
    model: "gpt-9",
    modelNote: `Relay "build-box" has no model list for Copilot yet (its model discovery did not run or failed), so 'gpt-9' was not checked.`,
  });
  assert.deepEqual(checkModel("copilot", undefined, { ...send, catalogs: { copilot: null } }), {
    model: "claude-sonnet-5.5",
  });
  // A discovered list replaces the table's.
  assert.deepEqual(checkModel("grok", "grok-6", { ...send, catalogs: { grok: ["grok-6"] } }), { model: "grok-6" });
  assert.equal(
    refusal(() => checkModel("grok", "grok-5", { ...send, catalogs: { grok: ["grok-6"] } })).code,
    "REMOTE_RELAY_UNKNOWN_MODEL",
  );
});

test("unknown provider is invalid input", () => {
  const err = refusal(() => checkModel("goose", "x", create));
  assert.equal(err.code, "REMOTE_RELAY_INVALID_INPUT");
  assert.match(err.message, /^Unknown provider 'goose'\. Providers: claude, .*qwen\. Nothing was created\.$/);
});
