import { z } from "zod";
import type { Db } from "../store/db.ts";
import type { Clock } from "./clock.ts";
import { RelayError } from "./errors.ts";
import { issueWords } from "./issue-words.ts";
import { CustomAgents, type CustomAgent } from "./custom-agent-schema.ts";
import { applyNotifyPatch, DEFAULT_NOTIFY, maskNotify, NotifySettings, notifySecretValues } from "./notify-settings.ts";
import { BudgetList, parseBudgets, type TargetCheck } from "./budget-schema.ts";

// Relay settings (contract §3). Stored as one JSON value per key; defaults live here.
// Provider set-up (keys, tokens) and the Claude API key's monthly cap are owner settings
// too: the catalog reads them to say which providers are available.
const Secret = z.string().trim().min(1).max(4096).nullable();
const Url = z
  .string()
  .trim()
  .max(2048)
  .refine((v) => /^https?:\/\/[^\s]+$/.test(v), "it must be an http:// or https:// address");

export const SettingsSchema = z.object({
  agentSessions: z.boolean(),
  longestWaitMinutes: z.number().int().min(2).max(60),
  maxTurnMinutes: z
    .number()
    .int()
    .min(1)
    .max(24 * 60),
  quietAfterMinutes: z
    .number()
    .int()
    .min(1)
    .max(24 * 60),
  acceptPromptsFromOtherRelays: z.boolean(),
  claudeApiKey: Secret,
  claudeCloudToken: Secret,
  deepseekApiKey: Secret,
  openaiApiKey: Secret,
  openaiCompatibleApiKey: Secret,
  /** Copilot's token for machines where nobody runs `copilot login` (contract §9.2). */
  copilotToken: Secret,
  /** Grok's xAI API key (given to Grok as XAI_API_KEY). */
  xaiApiKey: Secret,
  /** Endpoints (plain, not secret): proxies and compatible hosts. null: no such endpoint set up. */
  openaiCompatibleBaseUrl: Url.nullable(),
  openaiCompatibleName: z.string().trim().min(1).max(80),
  deepseekBaseUrl: Url,
  openaiBaseUrl: Url,
  /** null: no cap. At the cap, sends to Claude API sessions are refused (relay_tool §8.2). */
  claudeApiMonthlyCapUsd: z.number().min(0).max(1_000_000).nullable(),
  /** What the key spent this calendar month (UTC); reads 0 once a new month begins. */
  claudeApiSpentUsd: z.number().min(0).max(1_000_000_000),
  // Limits (contract §9.3), hardening: agent processes at once, task output kept per task
  // (its tail) and in all, request body size, MCP sessions held open.
  maxWorkers: z.number().int().min(1).max(256),
  taskOutputMaxMb: z.number().int().min(1).max(10_240),
  taskOutputTotalMb: z.number().int().min(1).max(1_048_576),
  maxBodyMb: z.number().int().min(1).max(512),
  maxMcpSessions: z.number().int().min(10).max(100_000),
  /** ACP agents the owner runs by command (contract §10.2); `env` values are secrets. */
  customAgents: CustomAgents,
  /** Where notifications to the owner go and when they wait (contract §10.3, src/notify/). */
  notify: NotifySettings,
  /** Spend caps (contract §10.4, src/budgets/): read through parseBudgets on update. */
  budgets: BudgetList,
  /** Parallel work in one repository (contract §10.1): which new sessions get a git worktree. */
  worktrees: z.enum(["off", "agents", "all"]),
  /** The test command a merge runs when `merge` names none; null: none. */
  mergeTestCommand: z.string().trim().min(1).max(2000).nullable(),
});
export type Settings = z.infer<typeof SettingsSchema>;

/** Settings whose values never leave the relay: GET /api/settings shows them as `****`. */
export const SECRET_SETTINGS = [
  "claudeApiKey",
  "claudeCloudToken",
  "deepseekApiKey",
  "openaiApiKey",
  "openaiCompatibleApiKey",
  "copilotToken",
  "xaiApiKey",
] as const;
export type SecretSetting = (typeof SECRET_SETTINGS)[number];
export const MASKED = "****";

export const DEFAULT_SETTINGS: Settings = {
  agentSessions: false,
  longestWaitMinutes: 10,
  maxTurnMinutes: 60,
  quietAfterMinutes: 10,
  acceptPromptsFromOtherRelays: true,
  claudeApiKey: null,
  claudeCloudToken: null,
  deepseekApiKey: null,
  openaiApiKey: null,
  openaiCompatibleApiKey: null,
  copilotToken: null,
  xaiApiKey: null,
  openaiCompatibleBaseUrl: null,
  openaiCompatibleName: "OpenAI-compatible",
  deepseekBaseUrl: "https://api.deepseek.com",
  openaiBaseUrl: "https://api.openai.com/v1",
  claudeApiMonthlyCapUsd: null,
  claudeApiSpentUsd: 0,
  maxWorkers: 8,
  taskOutputMaxMb: 20,
  taskOutputTotalMb: 1024,
  maxBodyMb: 4,
  maxMcpSessions: 2000,
  customAgents: [],
  notify: DEFAULT_NOTIFY,
  budgets: [],
  worktrees: "off",
  mergeTestCommand: null,
};

// The month the stored spend belongs to; kept beside the settings, never patched directly.
const SPENT_MONTH = "claudeApiSpentMonth";
const monthOf = (ms: number) => new Date(ms).toISOString().slice(0, 7);
const isSecret = (k: string): k is (typeof SECRET_SETTINGS)[number] =>
  (SECRET_SETTINGS as readonly string[]).includes(k);

export class SettingsStore {
  private cache: Settings;
  private spentMonth: string | null = null;
  constructor(
    private db: Db,
    private clock: Pick<Clock, "now">,
    /** What a budget's target may name (providers, groups, sessions): given by the composition root. */
    private budgetTargets: TargetCheck = {},
  ) {
    const rows = db.prepare("SELECT key, value FROM settings").all() as { key: string; value: string }[];
    const stored: Record<string, unknown> = {};
    for (const r of rows) {
      try {
        stored[r.key] = JSON.parse(r.value);
      } catch {}
    }
    const merged = { ...DEFAULT_SETTINGS };
    for (const key of Object.keys(DEFAULT_SETTINGS) as (keyof Settings)[]) {
      const parsed = SettingsSchema.shape[key].safeParse(stored[key]);
      if (parsed.success) (merged as Record<string, unknown>)[key] = parsed.data;
    }
    this.cache = merged;
    this.spentMonth = typeof stored[SPENT_MONTH] === "string" ? (stored[SPENT_MONTH] as string) : null;
  }

  /** The settings as the relay uses them, secrets included: never send this to anyone. */
  get(): Settings {
    const spent = this.spentMonth === monthOf(this.clock.now()) ? this.cache.claudeApiSpentUsd : 0;
    return { ...this.cache, claudeApiSpentUsd: spent };
  }

  /** What the owner API shows: each secret as `****` when set, else null. */
  publicView(): Settings {
    const s = this.get() as Record<string, unknown>;
    for (const k of SECRET_SETTINGS) s[k] = s[k] ? MASKED : null;
    s.customAgents = this.cache.customAgents.map((a) => ({
      ...a,
      env: Object.fromEntries(Object.keys(a.env).map((k) => [k, MASKED])),
    }));
    s.notify = maskNotify(this.cache.notify);
    return s as Settings;
  }

  /** The secret values, for masking them wherever text leaves the relay. */
  secretValues(): string[] {
    const custom = this.cache.customAgents.flatMap((a) => Object.values(a.env));
    return [...SECRET_SETTINGS.map((k) => this.cache[k]), ...custom, ...notifySecretValues(this.cache.notify)].filter(
      (v): v is string => !!v,
    );
  }

  /** Applies a partial update; unknown keys or bad values refuse the whole update. A secret
   * given as `****` (what GET shows) stays as it is; `""` or null removes it. */
  update(patch: unknown): Settings {
    if (!patch || typeof patch !== "object" || Array.isArray(patch)) {
      throw new RelayError("REMOTE_RELAY_INVALID_INPUT", "Settings must be a JSON object. Nothing was changed.");
    }
    // Own keys only: `constructor`, `valueOf` or `__proto__` are no settings.
    const unknown = Object.keys(patch).filter((k) => !Object.hasOwn(DEFAULT_SETTINGS, k));
    if (unknown.length) {
      throw new RelayError(
        "REMOTE_RELAY_INVALID_INPUT",
        `Unknown setting${unknown.length > 1 ? "s" : ""}: ${unknown.join(", ")}. Settings: ${Object.keys(DEFAULT_SETTINGS).join(", ")}. Nothing was changed.`,
      );
    }
    const input: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(patch)) {
      if (isSecret(k) && v === MASKED) continue;
      input[k] = (isSecret(k) || k === "openaiCompatibleBaseUrl") && v === "" ? null : v;
    }
    // Refused naming the field (budgets[1].usd); the parsed list (ids made) is what is stored.
    if (Object.hasOwn(input, "budgets")) input.budgets = parseBudgets(input.budgets, this.budgetTargets);
    if (Object.hasOwn(input, "customAgents"))
      input.customAgents = keepMaskedEnv(input.customAgents, this.cache.customAgents);
    // The fields given replace the current ones; its own refusals name `notify.<field>`.
    if (Object.hasOwn(input, "notify")) input.notify = applyNotifyPatch(this.cache.notify, input.notify);
    const parsed = SettingsSchema.partial().safeParse(input);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const key = String(issue.path[0]);
      const hint = key === "longestWaitMinutes" ? " (2 to 60 minutes)" : "";
      // A secret's value must not be echoed back in the refusal.
      const why = isSecret(key)
        ? "it must be text (or null to remove it)"
        : key === "customAgents"
          ? customAgentIssue(issue)
          : issue.code === "custom"
            ? issue.message
            : issueWords(issue, "it");
      throw new RelayError(
        "REMOTE_RELAY_INVALID_INPUT",
        `Setting ${key} is not valid: ${why}${hint}. Nothing was changed.`,
      );
    }
    const data = parsed.data as Record<string, unknown>;
    const upsert = this.db.prepare(
      "INSERT INTO settings(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
    );
    const month = Object.hasOwn(data, "claudeApiSpentUsd") ? monthOf(this.clock.now()) : null;
    this.db.transaction(() => {
      for (const [k, v] of Object.entries(data)) upsert.run(k, JSON.stringify(v));
      if (month) upsert.run(SPENT_MONTH, JSON.stringify(month));
    })();
    this.cache = { ...this.cache, ...data } as Settings;
    if (month) this.spentMonth = month;
    return this.get();
  }
}

/** A custom agent's `env` value sent back as `****` (what GET shows) keeps the stored value of
 * the same agent and variable; a `****` with nothing stored behind it is refused by the schema. */
function keepMaskedEnv(list: unknown, stored: readonly CustomAgent[]): unknown {
  if (!Array.isArray(list)) return list;
  return list.map((a: unknown) => {
    if (!a || typeof a !== "object" || Array.isArray(a)) return a;
    const agent = a as { id?: unknown; env?: unknown };
    if (!agent.env || typeof agent.env !== "object" || Array.isArray(agent.env)) return a;
    const before = stored.find((s) => s.id === agent.id)?.env ?? {};
    const env = Object.fromEntries(
      Object.entries(agent.env).map(([k, v]) => [
        k,
        v === MASKED && Object.hasOwn(before, k) ? before[k] : v === MASKED ? MASKED_UNKNOWN : v,
      ]),
    );
    return { ...agent, env };
  });
}
// Not a string: the schema refuses it, and the refusal names the variable without a value.
const MASKED_UNKNOWN = Symbol("masked value with nothing stored");

/** Where in customAgents the value is wrong, without echoing any value (env values are secrets). */
function customAgentIssue(issue: z.core.$ZodIssue): string {
  const [, index, field, name] = issue.path.map(String);
  if (index === undefined)
    return issue.code === "custom" ? issue.message : "it must be a list of { id, name, command, args, env }";
  const where = `entry ${Number(index) + 1}${field ? ` field ${field}${field === "env" && name ? ` variable ${name}` : ""}` : ""}`;
  if (field === "env")
    return `${where}: ${name ? "each value must be text (`****` keeps a value already stored)" : issue.message}`;
  return `${where}: ${issue.code === "custom" || issue.code === "invalid_format" ? issue.message : issueWords(issue, "it")}`;
}
