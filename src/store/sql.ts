// Prepared statements, compiled once per database and SQL text: hot paths (the watching
// capture path, list pages) run often, and compiling SQL costs more than running it.
import type { Statement } from "better-sqlite3";
import type { Db } from "./db.ts";

type Any = Statement<unknown[], unknown>;
const cache = new WeakMap<Db, Map<string, Any>>();

export function sql(db: Db, text: string): Any {
  let m = cache.get(db);
  if (!m) cache.set(db, (m = new Map()));
  let s = m.get(text);
  if (!s) m.set(text, (s = db.prepare(text) as Any));
  return s;
}
