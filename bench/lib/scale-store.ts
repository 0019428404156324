// Builds a relay's data folder at a given size, straight into SQLite with the product's
// own schema and migrations (src/store/db.ts), the way a long-lived relay would hold it:
// per N sessions, N schedules, N/10 subscriptions and 10·N messages (100,000 sessions:
// 100,000 schedules, 10,000 subscriptions, 1,000,000 messages). Most sessions are
// archived (90%) and the rest idle; a tenth of all sessions sit in agent groups of ten
// started by their head. Stores are cached under the temp folder by size and schema, so
// repeated runs reuse them (copy before use: a relay writes into its folder).
import { cpSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createHash, randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { openDb } from "../../src/store/db.ts";
import { MIGRATIONS } from "../../src/store/migrations.ts";

export interface ScaleStore {
  dir: string;
  sessions: number;
  /** Live (not archived) sessions, newest first is the list's order. */
  live: string[];
  /** A watcher and the session it watches (a subscription written in the store). */
  watcher: string;
  watched: string;
}

const ALPHA = "0123456789abcdefghijklmnopqrstuvwxyz";
function id(prefix: string, n: number): string {
  // Deterministic, id-shaped (12 of [0-9a-z]) and distinct per n.
  let s = "";
  let v = n;
  for (let i = 0; i < 12; i++) {
    s = ALPHA[v % 36] + s;
    v = Math.floor(v / 36);
  }
  return `${prefix}_${s}`;
}

const WORDS = [
  "review",
  "server",
  "release",
  "docs",
  "fix",
  "tests",
  "parser",
  "billing",
  "ui",
  "migration",
  "cache",
  "deploy",
];
const title = (i: number) => `${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]} #${i}`;

/** The store of `n` sessions in a cached folder; built on first use. */
export function scaleStore(n: number, log: (s: string) => void = () => {}): ScaleStore {
  const schema = createHash("sha1")
    .update(MIGRATIONS.map((m) => m.name + m.sql).join("\n"))
    .digest("hex")
    .slice(0, 10);
  const dir = join(tmpdir(), `oar-scale-${n}-${schema}`);
  const liveCount = Math.min(n, Math.max(12, Math.round(n / 10)));
  const live = Array.from({ length: liveCount }, (_, k) => id("ses", n - 1 - k)); // the newest are the live ones
  const info: ScaleStore = { dir, sessions: n, live, watcher: live[0], watched: live[1] };
  if (existsSync(join(dir, "done"))) return info;

  const started = Date.now();
  log(`building a store of ${n.toLocaleString("en")} sessions in ${dir}`);
  const tmp = `${dir}.building-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const db = openDb(join(tmp, "oar.db"));
  db.pragma("synchronous = OFF");
  const now = Date.now();
  const DAY = 86_400_000;
  const cwd = tmpdir();
  const insSession =
    db.prepare(`INSERT INTO sessions (id, title, provider, model, mode, cwd, agent_token, via_session, group_id, message_count, created_at, last_activity_at, archived_at)
    VALUES (?, ?, 'scripted', 'scripted-1', 'agent', ?, ?, ?, ?, ?, ?, ?, ?)`);
  const insGroup = db.prepare(
    "INSERT INTO groups (id, name, head_session, created_by, created_at) VALUES (?, ?, ?, 'agent', ?)",
  );
  const insMessage = db.prepare(
    "INSERT INTO messages (id, session_id, seq, role, text, meta_json, turn_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
  );
  const insTurn =
    db.prepare(`INSERT INTO turns (id, session_id, message_id, status, model, reply_text, reply_message_id, queued_at, started_at, ended_at)
    VALUES (?, ?, ?, 'done', 'scripted-1', ?, ?, ?, ?, ?)`);
  const insSchedule =
    db.prepare(`INSERT INTO schedules (id, session_id, set_by, title, text, every_minutes, first_at, next_fire_at, created_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const insSub = db.prepare(`INSERT INTO subscriptions (id, watcher, scope, sessions_json, created_at, digest_anchor_at)
    VALUES (?, ?, 'sessions', ?, ?, ?)`);
  const MESSAGES = 10;
  let msg = 0;
  let turn = 0;
  const BATCH = 5_000;
  for (let from = 0; from < n; from += BATCH) {
    db.transaction(() => {
      for (let i = from; i < Math.min(n, from + BATCH); i++) {
        const sid = id("ses", i);
        // Activity grows with i: the newest sessions are the live ones, spread over 60 days.
        const last = now - DAY - Math.round(((n - i) / n) * 60 * DAY);
        const archived = i < n - liveCount ? last + 1000 : null;
        // Groups of ten among the archived: the head is the first of each ten.
        const inGroup = archived !== null && i % 100 < 10;
        const head = inGroup ? i - (i % 10) : -1;
        const gid = inGroup ? id("grp", head) : null;
        if (inGroup && i === head) insGroup.run(gid, (head / 100) % 2 ? `Release ${head}` : null, sid, last);
        insSession.run(
          sid,
          title(i),
          cwd,
          randomBytes(24).toString("base64url"),
          inGroup && i !== head ? id("ses", head) : null,
          gid,
          MESSAGES,
          last - DAY,
          last,
          archived,
        );
        for (let m = 0; m < MESSAGES; m += 2) {
          const at = last - (MESSAGES - m) * 60_000;
          const ask = id("msg", msg++);
          const reply = id("msg", msg++);
          const tid = id("trn", turn++);
          const text = `Please look at ${title(i)} and tell me what changed in step ${m / 2} of the plan; keep it short.`;
          const answer = `echo: ${text}\nDone: nothing else changed, and the tests pass.`;
          insMessage.run(ask, sid, m + 1, "user", text, null, tid, at);
          insMessage.run(
            reply,
            sid,
            m + 2,
            "agent",
            answer,
            '{"model":"scripted-1","status":"done","error":null}',
            tid,
            at + 2000,
          );
          insTurn.run(tid, sid, ask, answer, reply, at, at + 10, at + 2000);
        }
      }
    })();
  }
  log(`  sessions and ${msg.toLocaleString("en")} messages written (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  // n schedules on the live sessions (at most 20 into each: contract §6), repeating, due
  // from 2 hours to a week ahead: none falls due while a bench moves its clock.
  db.transaction(() => {
    for (let k = 0; k < n; k++) {
      const target = live[k % live.length];
      const every = 60 * (24 + (k % 144));
      const first = now + 2 * 3_600_000 + ((k * 7919) % (7 * DAY - 2 * 3_600_000));
      insSchedule.run(
        id("sch", k),
        target,
        target,
        `check ${k}`,
        `Check step ${k} of the plan.`,
        every,
        first,
        first,
        now - DAY,
      );
    }
    // n/10 subscriptions (the first one is the bench's).
    const subs = Math.max(1, Math.round(n / 10));
    for (let k = 0; k < subs; k++) {
      const { watcher, sessions } = subscriptionLayout(k, info);
      insSub.run(id("sub", k), watcher, JSON.stringify(sessions), now - DAY, now - DAY);
    }
  })();
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  writeFileSync(join(tmp, "owner-token"), `${randomBytes(24).toString("base64url")}\n`, { mode: 0o600 });
  writeFileSync(join(tmp, "done"), "");
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  log(`  store built in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return info;
}

/** Who watches whom. The bench's own sessions (the first 16 live ones) are watched by no
 * one but subscription 0 (live[0] watching live[1]); the others' watchers sit in the first
 * half of the live sessions and watch two of the second half, which nothing prompts: a turn
 * in the bench wakes one watcher, never a chain of watchers waking each other. */
export function subscriptionLayout(
  k: number,
  store: Pick<ScaleStore, "live" | "watcher" | "watched">,
): { watcher: string; sessions: string[] } {
  const live = store.live;
  if (k === 0 || live.length < 40) return { watcher: store.watcher, sessions: [store.watched] };
  const half = Math.floor(live.length / 2);
  return {
    watcher: live[16 + (k % (half - 16))],
    sessions: [...new Set([live[half + (k % half)], live[half + ((k * 7) % half)]])],
  };
}

/** A fresh copy of a cached store for one relay to write into. Subscriptions are laid out
 * again (subscriptionLayout), so a store cached by an older generator behaves the same. */
export function copyStore(store: ScaleStore, to: string): void {
  cpSync(store.dir, to, { recursive: true });
  const db = new Database(join(to, "oar.db"));
  const rows = db.prepare("SELECT id FROM subscriptions ORDER BY id").all() as { id: string }[];
  const set = db.prepare("UPDATE subscriptions SET watcher = ?, sessions_json = ? WHERE id = ?");
  db.transaction(() => {
    rows.forEach((r, k) => {
      const { watcher, sessions } = subscriptionLayout(k, store);
      set.run(watcher, JSON.stringify(sessions), r.id);
    });
  })();
  db.close();
}
