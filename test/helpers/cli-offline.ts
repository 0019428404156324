// How the third-round CLIs are pointed at a local model server (docs/providers.md, STACK.md):
// each the way its own users point it at any endpoint. Used by the end-to-end tests and the bench.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Codex: a custom model provider in $CODEX_HOME/config.toml (~/.codex under `home`),
 * speaking the Responses API; no retries, so a refused key fails at once. */
export function codexConfig(home: string, baseUrl: string, model = "gpt-test", keyVar = "OAR_TEST_MODEL_KEY"): void {
  mkdirSync(join(home, ".codex"), { recursive: true });
  writeFileSync(
    join(home, ".codex", "config.toml"),
    [
      `model = "${model}"`,
      `model_provider = "oar-test"`,
      `[model_providers.oar-test]`,
      `name = "OAR test"`,
      `base_url = "${baseUrl}"`,
      `env_key = "${keyVar}"`,
      `wire_api = "responses"`,
      `request_max_retries = 0`,
      `stream_max_retries = 0`,
      "",
    ].join("\n"),
  );
}

/** opencode: an OpenAI-compatible provider `oar` with two models, as OPENCODE_CONFIG_CONTENT. */
export function opencodeConfig(baseUrl: string, key: string): string {
  return JSON.stringify({
    provider: {
      oar: {
        npm: "@ai-sdk/openai-compatible",
        name: "OAR test",
        options: { baseURL: baseUrl, apiKey: key },
        models: { "gpt-test": { name: "GPT test" }, "gpt-test-2": { name: "GPT test 2" } },
      },
    },
    model: "oar/gpt-test",
  });
}

/** opencode fetches its model catalogue (models.dev) at every start, in `initialize` and
 * again in `session/new`; offline that fails at once or, when the name lookup hangs, after a
 * 30 s timeout ("Failed to fetch models.dev" cause=TimeoutError, seen here in session/new).
 * Its built-in catalogue holds the same free models, so tests and the bench do without. */
export const OPENCODE_OFFLINE = { OPENCODE_DISABLE_MODELS_FETCH: "1" };

/** Qwen Code: OPENAI_* variables for the first model, settings.json listing both. */
export function qwenSetup(home: string, baseUrl: string, key: string): Record<string, string> {
  mkdirSync(join(home, ".qwen"), { recursive: true });
  const model = (id: string) => ({ id, name: id, baseUrl, envKey: "OPENAI_API_KEY" });
  writeFileSync(
    join(home, ".qwen", "settings.json"),
    JSON.stringify({ modelProviders: { openai: [model("gpt-test"), model("gpt-test-2")] } }),
  );
  return { OPENAI_API_KEY: key, OPENAI_BASE_URL: baseUrl, OPENAI_MODEL: "gpt-test" };
}

/**
 * The model Codex's auto-review runs on: its binary names `gpt-5.6-luna` beside
 * `codex-auto-review` and its guardian classifier (a one-token high/low risk verdict it may ask
 * before a tool call, with the transcript in its input). Not the session's model, so not counted.
 */
export const CODEX_AUTO_REVIEW_MODEL = "gpt-5.6-luna";

/** A call of Codex's agent loop, not one of its side calls (a title has no environment context; the auto-review runs on its own model). */
export function codexTurnCall(c: { model?: string; input?: unknown; headers?: Record<string, string> }): boolean {
  if (c.model === CODEX_AUTO_REVIEW_MODEL || c.headers?.["x-openai-subagent"]) return false;
  return JSON.stringify(c.input).includes("<environment_context>");
}
