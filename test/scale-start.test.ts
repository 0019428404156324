// Start-up and lists with a big store (issue 14): the relay does not read every stored
// session, schedule or message into memory. The store is written straight into SQLite with
// the product's own schema; archived sessions, far-off schedules and old messages each carry
// a large payload, so a path that read all of one table would grow the relay by 75 MB or
// more. The assertion is on memory against a fresh relay of the same build, never on time.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDb } from "../src/store/db.ts";
import { TestRelay } from "./helpers/relay-process.ts";

const ROWS = 600;
const PAYLOAD = "x".repeat(128 * 1024); // 600 × 128 KB = 75 MB per table
const LIVE = 60;
const dir = mkdtempSync(join(tmpdir(), "oar-bigstore-"));
let relay: TestRelay;
let fresh: TestRelay;
const sid = (i: number) => `ses_big${String(i).padStart(9, "0")}`;

function buildStore(): void {
  const db = openDb(join(dir, "oar.db"));
  db.pragma("synchronous = OFF");
  const now = Date.now();
  const session =
    db.prepare(`INSERT INTO sessions (id, title, provider, model, cwd, agent_token, extra_json, message_count, created_at, last_activity_at, archived_at)
    VALUES (?, ?, 'scripted', 'scripted-1', ?, ?, ?, 1, ?, ?, ?)`);
  const message = db.prepare(
    "INSERT INTO messages (id, session_id, seq, role, text, created_at) VALUES (?, ?, 1, 'user', ?, ?)",
  );
  const schedule =
    db.prepare(`INSERT INTO schedules (id, session_id, set_by, title, text, every_minutes, first_at, next_fire_at, created_at)
    VALUES (?, ?, ?, ?, ?, 1440, ?, ?, ?)`);
  db.transaction(() => {
    for (let i = 0; i < ROWS + LIVE; i++) {
      const archived = i < ROWS;
      const at = now - 86_400_000 + i * 1000;
      session.run(
        sid(i),
        `Stored ${i}`,
        tmpdir(),
        randomBytes(24).toString("base64url"),
        archived ? JSON.stringify({ note: PAYLOAD }) : "{}",
        at - 5000,
        at,
        archived ? at + 1 : null,
      );
      if (archived) message.run(`msg_big${i}`, sid(i), PAYLOAD, at - 1000);
    }
    // Far-off schedules with large texts into the live sessions (20 each at most), and one
    // that fell due while the relay was down: start-up fires that one only.
    for (let k = 0; k < ROWS; k++) {
      const into = sid(ROWS + (k % LIVE));
      const due = now + 3 * 86_400_000 + k * 60_000;
      schedule.run(`sch_big${k}`, into, into, `far ${k}`, PAYLOAD, due, due, now - 3_600_000);
    }
    const into = sid(ROWS);
    schedule.run(
      "sch_bigdue",
      into,
      into,
      "due",
      "Due while the relay was down.",
      now - 60_000,
      now - 60_000,
      now - 3_600_000,
    );
  })();
  db.close();
}

const rss = (r: TestRelay) =>
  Number(/VmRSS:\s*(\d+)/.exec(readFileSync(`/proc/${r.proc.pid}/status`, "utf8"))![1]) / 1024;

before(async () => {
  buildStore();
  writeFileSync(join(dir, "owner-token"), `${randomBytes(24).toString("base64url")}\n`, { mode: 0o600 });
  fresh = await TestRelay.start({ name: "fresh" });
  relay = await TestRelay.start({ name: "big", dataDir: dir });
});
after(async () => {
  await fresh?.stop();
  await relay?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test("a relay over a big store starts, lists a page and fires only what fell due, without reading every row", async () => {
  const mcp = await relay.mcp(sid(ROWS + 1));
  const page = await mcp.call({ action: "list_sessions", relay: "this" });
  assert.equal(page.ok, true, JSON.stringify(page).slice(0, 300));
  assert.equal(page.total, LIVE);
  assert.equal(page.sessions.length, 50);
  const times = page.sessions.map((s: any) => Date.parse(s.lastActivityAt));
  assert.deepEqual(
    times,
    [...times].sort((a, b) => b - a),
    "most recently active first",
  );
  assert.ok(page.sessions.some((s: any) => s.id === sid(ROWS + LIVE - 1)));
  const all = await mcp.call({ action: "list_sessions", relay: "this", scope: "all", limit: 10 });
  assert.equal(all.total, ROWS + LIVE);
  assert.equal(all.sessions.length, 10);
  assert.equal((await mcp.call({ action: "relay_info", relay: "this" })).ok, true);
  const read = await mcp.call({ action: "read_session", relay: "this", session: sid(3) });
  assert.equal(read.ok, true);
  assert.equal(read.messages[0].text.length, PAYLOAD.length, "one session's messages are read when asked for");

  // The schedule that fell due while down fired once at start-up; the far-off ones did not.
  const due = await relay.waitFor(async () =>
    (await relay.session(sid(ROWS))).messages.find((m: any) => m.role === "schedule"),
  );
  assert.match(due.text, /Due while the relay was down\./);
  const fired = (await relay.api("GET", `/api/schedules?session=${sid(ROWS)}`)).json.schedules;
  assert.equal(fired.filter((s: any) => s.firedCount > 0).length, 1);

  // 75 MB of payload per table: reading all of any one would show here.
  const grown = rss(relay) - rss(fresh);
  assert.ok(
    grown < 50,
    `the relay over the big store holds ${grown.toFixed(0)} MB more than a fresh one (fresh ${rss(fresh).toFixed(0)} MB)`,
  );
});
