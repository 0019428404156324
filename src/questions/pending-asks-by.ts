import type { Db } from "../store/db.ts";
import type { QuestionRow } from "./ask-user.ts";

// Asks by a set of callers (the stand-ins of one pairing, pairing/stand-ins.ts): what a paired
// relay's Inbox lists from here, and what ends when that pairing does.

/** The pending `ask` questions these callers asked, oldest first. */
export function pendingAsksBy(db: Db, callers: string[]): QuestionRow[] {
  if (!callers.length) return [];
  return db
    .prepare(`SELECT * FROM questions WHERE asked_by IN (SELECT value FROM json_each(?)) AND kind = 'ask' AND status = 'pending'
    ORDER BY created_at`)
    .all(JSON.stringify(callers)) as QuestionRow[];
}

/** Ends every question still pending that these callers asked. */
export function endAsksBy(db: Db, callers: string[], now: number): void {
  if (!callers.length) return;
  db.prepare(
    "UPDATE questions SET status = 'ended', ended_at = ? WHERE asked_by IN (SELECT value FROM json_each(?)) AND status = 'pending'",
  ).run(now, JSON.stringify(callers));
}
