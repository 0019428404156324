import type { ProviderAdapter } from "./types.ts";

// Qwen Code (@qwen-code/qwen-code 0.24.4; declares Node >= 22 but runs on Node 20), `qwen --acp`.
// - Signed in: `qwen` and its /auth (kept in ~/.qwen), or an OpenAI-compatible endpoint from the
//   relay's environment: OPENAI_API_KEY with OPENAI_BASE_URL and OPENAI_MODEL (the tests' local
//   chat-completions server). Otherwise session/new answers -32000 "Authentication required:
//   Use Qwen Code CLI to authenticate first."
// - Modes plan, default (asks), auto-edit, auto (a model classifier), yolo (asks nothing).
// - Usage arrives in the `_meta.usage` of each model reply's last text chunk (reported-usage.ts).
export const qwen: ProviderAdapter = {
  id: "qwen",
  binary: "qwen",
  secretSettings: [],
  secretEnv: ["OPENAI_API_KEY", "DASHSCOPE_API_KEY"],
  launch(ctx) {
    if (!ctx.binary) return null;
    return { command: ctx.binary, args: ["--acp"] };
  },
  signIn: "run `qwen` and sign in with /auth (or start the relay with OPENAI_API_KEY, OPENAI_BASE_URL and OPENAI_MODEL set)",
  modes: { agent: ["yolo"], ask: ["default"], plan: ["plan"] },
  // Its ids carry where the model comes from ("$runtime|openai|gpt-4o(openai)"): the relay lists the model's own id.
  modelId: (m) => m.id.replace(/^\$runtime\|[^|]*\|/, "").replace(/\([^()]*\)$/, "") || m.id,
};
