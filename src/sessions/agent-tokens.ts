import type { Db } from "../store/db.ts";
import type { SecretMaskDeps } from "../core/secret-mask.ts";

/** Which strings are agent tokens, for core/secret-mask.ts (which holds no SQL of its own):
 * the sessions' tokens, deleted sessions' too, read on the unique index. */
export function agentTokenLookups(db: Db): Pick<SecretMaskDeps, "isAgentToken" | "agentTokensAmong"> {
  const one = db.prepare("SELECT 1 FROM sessions WHERE agent_token = ?").pluck();
  const many = db
    .prepare("SELECT agent_token FROM sessions WHERE agent_token IN (SELECT value FROM json_each(?))")
    .pluck();
  return {
    isAgentToken: (t) => one.get(t) !== undefined,
    agentTokensAmong: (ts) => new Set(many.all(JSON.stringify(ts)) as string[]),
  };
}
