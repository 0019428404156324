// What one agent process runs against, read once from its environment. The relay sets these
// (provider.ts `agentEnv`); the process gets only its own provider's secret.

export const ENV = {
  provider: "OAR_OPENAI_AGENT_PROVIDER",
  baseUrl: "OAR_OPENAI_AGENT_BASE_URL",
  apiKey: "OAR_OPENAI_AGENT_API_KEY",
  name: "OAR_OPENAI_AGENT_NAME",
  defaultModel: "OAR_OPENAI_AGENT_MODEL",
} as const;

export type AgentFlavour = "deepseek" | "openai-compatible";

export interface AgentConfig {
  flavour: AgentFlavour;
  /** Shown in errors: "DeepSeek", or the owner's name for the endpoint. */
  name: string;
  baseUrl: string;
  /** Local servers often need none; the SDK insists on a string, so "none" stands in. */
  apiKey: string;
  defaultModel: string;
  /** Where the owner fixes a bad key or URL. */
  settingsHint: string;
  /** DeepSeek always thinks (issue 10); other endpoints think if their model does. */
  alwaysThinks: boolean;
  /** The API takes `reasoning_effort` (DeepSeek's chat API does not). */
  takesEffort: boolean;
  /** The window "auto" stands for, in tokens; null: compaction only when the server says the context is full. */
  autoWindow: number | null;
}

export const DEEPSEEK_WHOLE_WINDOW = 400_000;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AgentConfig {
  const flavour: AgentFlavour = env[ENV.provider] === "openai-compatible" ? "openai-compatible" : "deepseek";
  if (flavour === "deepseek") {
    return {
      flavour,
      name: env[ENV.name] || "DeepSeek",
      baseUrl: env[ENV.baseUrl] || "https://api.deepseek.com",
      apiKey: env[ENV.apiKey] || "none",
      defaultModel: env[ENV.defaultModel] || "deepseek-v4",
      settingsHint: "Settings → Providers → DeepSeek",
      alwaysThinks: true,
      takesEffort: false,
      // 90% of the whole window: room is left for the reply and the tools' results.
      autoWindow: Math.round(DEEPSEEK_WHOLE_WINDOW * 0.9),
    };
  }
  return {
    flavour,
    name: env[ENV.name] || "OpenAI-compatible",
    baseUrl: env[ENV.baseUrl] || "http://127.0.0.1:8080/v1",
    apiKey: env[ENV.apiKey] || "none",
    defaultModel: env[ENV.defaultModel] || "",
    settingsHint: "Settings → Providers → OpenAI-compatible",
    alwaysThinks: false,
    takesEffort: true,
    autoWindow: null,
  };
}
