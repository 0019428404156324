import { z } from "zod";
import { RelayError } from "./errors.ts";
import { issueWords } from "./issue-words.ts";
import { canonicalZone } from "./time-zone.ts";

// The `notify` setting (contract §10.3): where notifications go and when they wait.
// core/settings.ts holds it as `notify` (DEFAULT_NOTIFY), reads a PATCH through
// applyNotifyPatch and shows it through maskNotify.

const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;
const Url = z
  .string()
  .trim()
  .max(2048)
  .refine((v) => /^https?:\/\/[^\s]+$/.test(v) && URL.canParse(v), "it must be an http:// or https:// address");

/** quiet hours as a subscription's `quiet_hours` (watching/quiet-hours.ts), the zone
 * canonicalised; null, or every field empty, means none. */
export const QuietHoursSetting = z.preprocess(
  (v) => {
    if (v && typeof v === "object" && !Array.isArray(v)) {
      const o = v as Record<string, unknown>;
      const empty = (x: unknown) => x == null || x === "";
      if (empty(o.from) && empty(o.to) && empty(o.tz)) return null;
    }
    return v;
  },
  z
    .strictObject({
      from: z.string().regex(HHMM, 'from must be a time of day as "HH:MM" (00:00 to 23:59)'),
      to: z.string().regex(HHMM, 'to must be a time of day as "HH:MM" (00:00 to 23:59)'),
      tz: z.string().transform((tz, ctx) => {
        const zone = canonicalZone(tz);
        if (zone) return zone;
        ctx.addIssue({
          code: "custom",
          message: `tz "${tz.slice(0, 60)}" is not an IANA time zone (for example "Europe/Berlin", "UTC")`,
        });
        return z.NEVER;
      }),
    })
    .refine((q) => q.from !== q.to, "from and to must differ")
    .nullable(),
);

export const NotifySettings = z.strictObject({
  /** Web Push to every subscribed browser; a subscription is enough (default true). */
  webPush: z.boolean(),
  /** Secret: whoever knows an ntfy topic's address reads it. */
  ntfyUrl: Url.nullable(),
  webhookUrl: Url.nullable(),
  /** Secret: the key of X-OAR-Signature; without one the webhook goes unsigned. */
  webhookSecret: z.string().trim().min(1).max(4096).nullable(),
  /** Also when a turn the owner started finishes without an error. */
  turnsDone: z.boolean(),
  quietHours: QuietHoursSetting,
  /** The page's address as the owner reaches it (a proxy's, `tailscale serve`'s): the links in
   * webhook and ntfy notifications point there; null: the relay's own address. Web Push
   * needs none (its worker opens links on the origin the page was served from). Not part of
   * contract §10.3's list; added by its "follow the style" rule. */
  publicUrl: Url.refine((v) => {
    if (!URL.canParse(v)) return true; // Url's own check refuses it
    const u = new URL(v);
    return !u.hash && !u.username && !u.password && !u.search;
  }, "it must be the page's address alone (no #fragment, ?query or user:password@)")
    .nullable()
    // Stored before it existed: the rest of the stored setting still reads.
    .default(null),
});
export type NotifySettings = z.output<typeof NotifySettings>;

export const DEFAULT_NOTIFY: NotifySettings = {
  webPush: true,
  ntfyUrl: null,
  webhookUrl: null,
  webhookSecret: null,
  turnsDone: false,
  quietHours: null,
  publicUrl: null,
};

export const NOTIFY_SECRETS = ["ntfyUrl", "webhookSecret"] as const;
const MASKED = "****";

/** What the owner API shows: each secret as `****` when set, else null. */
export function maskNotify(n: NotifySettings): NotifySettings {
  return { ...n, ntfyUrl: n.ntfyUrl ? MASKED : null, webhookSecret: n.webhookSecret ? MASKED : null };
}

/** The secret values, for masking them wherever text leaves the relay. */
export function notifySecretValues(n: NotifySettings): string[] {
  return NOTIFY_SECRETS.map((k) => n[k]).filter((v): v is string => !!v);
}

/** A PATCH of `notify`: the fields given replace the current ones; a secret given as `****`
 * (what GET shows) stays, `""` or null removes a secret or an address. Refusals name the
 * field and never echo a secret. */
export function applyNotifyPatch(current: NotifySettings, patch: unknown): NotifySettings {
  if (!patch || typeof patch !== "object" || Array.isArray(patch)) throw refused("notify", "it must be an object");
  const input: Record<string, unknown> = { ...current };
  for (const [k, v] of Object.entries(patch)) {
    const secret = (NOTIFY_SECRETS as readonly string[]).includes(k);
    if (secret && v === MASKED) continue;
    input[k] = (secret || k === "webhookUrl" || k === "publicUrl") && v === "" ? null : v;
  }
  const parsed = NotifySettings.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const key = issue.path.length ? `notify.${String(issue.path[0])}` : "notify";
  const isSecret = (NOTIFY_SECRETS as readonly string[]).includes(String(issue.path[0]));
  // Our own checks carry our words; the rest (a wrong type, an unknown field) issueWords says.
  const own = issue.code === "custom" || issue.code === "invalid_format";
  const inner = issue.path.length > 1 ? issue.path.slice(1).join(".") : "it";
  const why =
    isSecret && issue.code !== "unrecognized_keys"
      ? secretWhy(String(issue.path[0]))
      : own
        ? issue.message
        : issueWords(issue, inner);
  throw refused(key, why);
}

const secretWhy = (k: string) =>
  k === "ntfyUrl"
    ? "it must be an http:// or https:// address (or null to remove it)"
    : "it must be text (or null to remove it)";
const refused = (key: string, why: string) =>
  new RelayError("REMOTE_RELAY_INVALID_INPUT", `Setting ${key} is not valid: ${why}. Nothing was changed.`);
