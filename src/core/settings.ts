import { z } from "zod";
import type { Db } from "../store/db.ts";
import { RelayError } from "./errors.ts";

// Relay settings (contract §3). Stored as one JSON value per key; defaults live here.
export const SettingsSchema = z.object({
  agentSessions: z.boolean(),
  longestWaitMinutes: z.number().int().min(2).max(60),
  maxTurnMinutes: z.number().int().min(1).max(24 * 60),
  quietAfterMinutes: z.number().int().min(1).max(24 * 60),
  acceptPromptsFromOtherRelays: z.boolean(),
});
export type Settings = z.infer<typeof SettingsSchema>;

export const DEFAULT_SETTINGS: Settings = {
  agentSessions: false,
  longestWaitMinutes: 10,
  maxTurnMinutes: 60,
  quietAfterMinutes: 10,
  acceptPromptsFromOtherRelays: true,
};

export class SettingsStore {
  private cache: Settings;

  constructor(private db: Db) {
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
  }

  get(): Settings {
    return { ...this.cache };
  }

  /** Applies a partial update; unknown keys or bad values refuse the whole update. */
  update(patch: unknown): Settings {
    if (!patch || typeof patch !== "object" || Array.isArray(patch)) {
      throw new RelayError("REMOTE_RELAY_INVALID_INPUT", "Settings must be a JSON object. Nothing was changed.");
    }
    const unknown = Object.keys(patch).filter((k) => !(k in DEFAULT_SETTINGS));
    if (unknown.length) {
      throw new RelayError(
        "REMOTE_RELAY_INVALID_INPUT",
        `Unknown setting${unknown.length > 1 ? "s" : ""}: ${unknown.join(", ")}. Settings: ${Object.keys(DEFAULT_SETTINGS).join(", ")}. Nothing was changed.`,
      );
    }
    const parsed = SettingsSchema.partial().safeParse(patch);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const hint = issue.path[0] === "longestWaitMinutes" ? " (2 to 60 minutes)" : "";
      throw new RelayError(
        "REMOTE_RELAY_INVALID_INPUT",
        `Setting ${String(issue.path[0])} is not valid: ${issue.message}${hint}. Nothing was changed.`,
      );
    }
    const upsert = this.db.prepare("INSERT INTO settings(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value");
    this.db.transaction(() => {
      for (const [k, v] of Object.entries(parsed.data)) upsert.run(k, JSON.stringify(v));
    })();
    this.cache = { ...this.cache, ...parsed.data } as Settings;
    return this.get();
  }
}
