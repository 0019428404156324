import { SECRET_SETTINGS } from "../../core/settings.ts";
import type { ProviderAdapter } from "./types.ts";

// contract §9.2: a worker inherits the relay's environment (so a CLI's own variables such as
// ANTHROPIC_BASE_URL or Copilot's offline set-up reach it), minus every provider secret that
// is not its own: other providers' secret variables, and any variable holding another
// provider's secret setting.

/** Secret variables of providers that have no adapter module (yet), so they are kept out too. */
const OTHER_SECRET_ENV: readonly string[] = [
  "DEEPSEEK_API_KEY",
  "OPENAI_API_KEY",
  "OPENAI_COMPATIBLE_API_KEY",
  "CLAUDE_CLOUD_TOKEN",
  "GEMINI_API_KEY",
  "GOOGLE_API_KEY",
];

export function workerEnv(
  own: ProviderAdapter | undefined,
  all: readonly ProviderAdapter[],
  settings: Record<string, unknown>,
  base: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const mine = new Set(own?.secretEnv ?? []);
  const strip = new Set([...OTHER_SECRET_ENV, ...all.flatMap((a) => a.secretEnv)].filter((n) => !mine.has(n)));
  const ownSettings = new Set<string>(own?.secretSettings ?? []);
  const foreign = new Set(
    SECRET_SETTINGS.filter((k) => !ownSettings.has(k))
      .map((k) => settings[k])
      .filter((v): v is string => typeof v === "string" && v.length > 0),
  );
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) {
    if (v === undefined || strip.has(k) || foreign.has(v)) continue;
    env[k] = v;
  }
  return env;
}
