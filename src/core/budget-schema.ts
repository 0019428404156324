import { z } from "zod";
import { RelayError } from "./errors.ts";
import { newId } from "./ids.ts";
import { issueWords } from "./issue-words.ts";

// The `budgets` setting (contract §10.4): a list of `{ id, scope, target, period, usd,
// tokens }`. Phase B adds `budgets: BudgetList` to core/settings.ts's SettingsSchema (default
// []) and reads a PATCH through parseBudgets, which names the field that is wrong.

export const SCOPES = ["relay", "provider", "group", "session"] as const;
export const PERIODS = ["day", "month", "total"] as const;
export const MAX_BUDGETS = 200;

const ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export const Budget = z
  .strictObject({
    /** Left out: the relay names it (`bud_…`). */
    id: z
      .string()
      .regex(ID, "id must be 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit")
      .optional(),
    scope: z.enum(SCOPES),
    /** The provider id, group id or session id; none for `relay`. */
    target: z.preprocess((v) => (v === "" ? null : v), z.string().trim().min(1).max(200).nullish()),
    period: z.enum(PERIODS),
    usd: z.number().positive().max(1_000_000_000).nullish(),
    tokens: z.number().int().positive().max(1e15).nullish(),
  })
  .transform((b) => ({
    id: b.id ?? newId("bud"),
    scope: b.scope,
    target: b.scope === "relay" ? null : (b.target ?? null),
    period: b.period,
    usd: b.usd ?? null,
    tokens: b.tokens ?? null,
  }));
export type Budget = z.output<typeof Budget>;

export const BudgetList = z.array(Budget).max(MAX_BUDGETS);

/** What the relay knows, to refuse a target naming nothing (each check optional). */
export interface TargetCheck {
  isProvider?(id: string): boolean;
  isGroup?(id: string): boolean;
  isSession?(id: string): boolean;
}

const NOTHING = "Nothing was changed.";
const refused = (field: string, why: string) =>
  new RelayError("REMOTE_RELAY_INVALID_INPUT", `Setting ${field} is not valid: ${why}. ${NOTHING}`);

/** The setting's new value, checked: every refusal names the field (`budgets[2].usd`). */
export function parseBudgets(value: unknown, known: TargetCheck = {}): Budget[] {
  const parsed = BudgetList.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const [index, field] = issue.path;
    if (index === undefined) throw refused("budgets", issueWords(issue, "it"));
    const where = `budgets[${String(index)}]${field === undefined ? "" : `.${String(field)}`}`;
    const why = issue.code === "invalid_format" ? issue.message : issueWords(issue, "it");
    throw refused(where, why);
  }
  const list = parsed.data;
  const seen = new Set<string>();
  list.forEach((b, i) => {
    const at = `budgets[${i}]`;
    if (seen.has(b.id)) throw refused(`${at}.id`, `another budget already has the id "${b.id}"`);
    seen.add(b.id);
    if (b.usd === null && b.tokens === null) throw refused(at, "it needs a limit: usd, tokens or both");
    const raw = (value as Record<string, unknown>[])[i];
    if (b.scope === "relay" && raw.target != null && raw.target !== "") {
      throw refused(`${at}.target`, "a relay budget takes no target");
    }
    if (b.scope === "relay") return;
    if (b.target === null) throw refused(`${at}.target`, `a ${b.scope} budget needs a target: the ${b.scope} id`);
    const exists = { provider: known.isProvider, group: known.isGroup, session: known.isSession }[b.scope];
    if (exists && !exists(b.target)) {
      throw refused(`${at}.target`, `no ${b.scope} "${b.target.slice(0, 60)}" on this relay`);
    }
  });
  return list;
}
