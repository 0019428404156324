import type { Db } from "../store/db.ts";
import { sql } from "../store/sql.ts";
import type { SubRow } from "./types.ts";

/** Every active subscription of the relay (contract §10.5 GET /api/subscriptions): those
 * watching here and those this relay's conversations hold on paired relays. */
export function activeSubRows(db: Db, store: { flushWrites(): void }): SubRow[] {
  store.flushWrites();
  return sql(db, "SELECT * FROM subscriptions WHERE ended_at IS NULL ORDER BY created_at, rowid").all() as SubRow[];
}
