// The owner routes added for the page (contract §10.5) and what the owner's list adds:
// unarchive, full-text search, owner schedules and subscriptions (relay_tool's checks and
// words, no change on bad input), each list entry's last outcome and preview, usage per
// day, and the scripted agent's /write and /usage lines these views are made from.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { TestRelay } from "./helpers/relay-process.ts";

let relay: TestRelay;
before(async () => {
  relay = await TestRelay.start();
});
after(() => relay?.stop());

const MIN = 60_000;
const now = async () => Date.parse(await relay.advance(0));

test("unarchive brings an archived session back; it takes messages again; what archiving ended stays ended", async () => {
  const a = await relay.createSession({ title: "Back again" });
  const w = await relay.createSession({ title: "Its watcher" });
  const sub = await relay.api("POST", "/api/subscriptions", { watcher: w, sessions: [a] });
  assert.equal(sub.status, 201, JSON.stringify(sub.json));
  const sch = await relay.api("POST", "/api/schedules", {
    session: a,
    text: "ping",
    at: new Date((await now()) + 10 * MIN).toISOString(),
  });
  assert.equal(sch.status, 201, JSON.stringify(sch.json));
  assert.equal((await relay.api("POST", `/api/sessions/${a}/archive`)).status, 200);
  assert.equal(
    (await relay.api("POST", `/api/sessions/${a}/messages`, { text: "hi" })).json.code,
    "REMOTE_RELAY_ARCHIVED",
  );

  const r = await relay.api("POST", `/api/sessions/${a}/unarchive`);
  assert.equal(r.status, 200, JSON.stringify(r.json));
  assert.deepEqual(r.json, { ok: true, session: a, archived: false });
  const s = await relay.session(a);
  assert.equal(s.archived, undefined);
  const listed = (await relay.api("GET", "/api/sessions?scope=active")).json.sessions.map((x: any) => x.id);
  assert.ok(listed.includes(a), "listed among the active ones again");
  const reply = await relay.say(a, "after");
  assert.equal(reply.text, "echo: after");
  const subs = (await relay.api("GET", `/api/subscriptions?watcher=${w}`)).json.subscriptions;
  assert.equal(subs.find((x: any) => x.id === sub.json.id).active, false, "the ended subscription stays ended");
  assert.equal(
    (await relay.api("GET", "/api/schedules")).json.schedules.some((x: any) => x.id === sch.json.id),
    false,
    "the schedule stays ended",
  );

  assert.equal((await relay.api("POST", "/api/sessions/ses_nope/unarchive")).json.code, "REMOTE_RELAY_NOT_FOUND");
});

test("search finds a word of a message and of a question, newest first, a page at a time, with marked snippets", async () => {
  const a = await relay.createSession({ title: "Parser work" });
  const b = await relay.createSession({ title: "Other" });
  await relay.say(a, "the zanzibar parser needs a rewrite");
  await relay.say(b, "nothing of note here");
  await relay.say(b, "zanzibar again, second time");
  const mcp = await relay.mcp(b);
  const asked = await mcp.call({
    action: "ask",
    session: a,
    question: "Should the zanzibar module stay?",
    options: ["yes", "no"],
  });
  assert.equal(asked.ok, true, JSON.stringify(asked));

  const r = await relay.api("GET", "/api/search?q=Zanzibar");
  assert.equal(r.status, 200, JSON.stringify(r.json));
  const hits = r.json.hits;
  // Two owner messages, two echoes, one question: newest first.
  assert.equal(hits.length, 5, JSON.stringify(hits));
  const times = hits.map((h: any) => h.createdAt);
  assert.deepEqual([...times].sort().reverse(), times);
  assert.ok(
    hits.every((h: any) => /<mark>zanzibar<\/mark>/i.test(h.snippet)),
    JSON.stringify(hits.map((h: any) => h.snippet)),
  );
  const q = hits.find((h: any) => h.kind === "question");
  assert.equal(q.session, a);
  assert.match(q.message, /^ask_/);
  const m = hits.find((h: any) => h.kind === "message" && h.session === a && h.role === "user");
  assert.ok(
    (await relay.session(a)).messages.some((x: any) => x.id === m.message),
    "the hit names the message",
  );
  // A prefix finds the word; words that are not there find nothing.
  assert.equal((await relay.api("GET", "/api/search?q=zanzi")).json.hits.length, 5);
  assert.deepEqual((await relay.api("GET", "/api/search?q=quokka")).json, { hits: [], nextCursor: null });
  // Paging: two pages of 3 and 2, no hit twice.
  const p1 = (await relay.api("GET", "/api/search?q=zanzibar&limit=3")).json;
  assert.equal(p1.hits.length, 3);
  assert.ok(p1.nextCursor);
  const p2 = (await relay.api("GET", `/api/search?q=zanzibar&limit=3&cursor=${p1.nextCursor}`)).json;
  assert.equal(p2.hits.length, 2);
  assert.equal(p2.nextCursor, null);
  assert.deepEqual(
    [...p1.hits, ...p2.hits].map((h: any) => h.message),
    hits.map((h: any) => h.message),
  );
  // Operators and quotes are words, not syntax.
  assert.equal((await relay.api("GET", `/api/search?q=${encodeURIComponent('"zanzibar" OR NEAR(')}`)).status, 200);
  // A deleted session's messages are not found.
  await relay.api("DELETE", `/api/sessions/${b}`);
  assert.ok((await relay.api("GET", "/api/search?q=zanzibar")).json.hits.every((h: any) => h.session === a));
  // Bad input is coded.
  for (const bad of [
    "",
    "?q=",
    "?q=x&limit=0",
    "?q=x&limit=101",
    "?q=x&limit=two",
    "?q=x&cursor=nonsense",
    `?q=${"x".repeat(201)}`,
  ]) {
    const e = await relay.api("GET", `/api/search${bad}`);
    assert.equal(e.status, 400, bad);
    assert.equal(e.json.code, "REMOTE_RELAY_INVALID_INPUT", bad);
    assert.match(e.json.error, /Nothing was searched\.$/);
  }
});

test("messages stored before the index existed are found (the migration fills it)", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "oar-search-old-"));
  const old = await TestRelay.start({ dataDir });
  try {
    const a = await old.createSession({ title: "Old" });
    await old.say(a, "platypus before the index");
    await old.kill();
    // As a store from before migration 023: no index, no triggers.
    const db = new Database(join(dataDir, "oar.db"));
    db.exec(`DROP TRIGGER messages_fts_insert; DROP TRIGGER messages_fts_delete; DROP TRIGGER messages_fts_update; DROP TABLE messages_fts;
      DROP TRIGGER questions_fts_insert; DROP TRIGGER questions_fts_delete; DROP TRIGGER questions_fts_update; DROP TABLE questions_fts;
      DELETE FROM migrations WHERE name = '023-search-index';`);
    db.close();
    await old.boot();
    const hits = (await old.api("GET", "/api/search?q=platypus")).json.hits;
    assert.equal(hits.length, 2, JSON.stringify(hits));
    assert.ok(hits.every((h: any) => h.session === a));
  } finally {
    await old.stop();
  }
});

test("the owner sets a schedule with schedule's checks and words; setBy reads owner; bad input changes nothing", async () => {
  const a = await relay.createSession({ title: "Nightly" });
  const t0 = await now();
  const before = (await relay.api("GET", "/api/schedules")).json.schedules.length;
  const bad: [Record<string, unknown>, string, RegExp][] = [
    [
      { session: a, text: "x" },
      "REMOTE_RELAY_INVALID_INPUT",
      /^schedule needs at \(an ISO time\) or every_minutes, or both\. Nothing was scheduled\.$/,
    ],
    [{ session: a, at: new Date(t0 + MIN).toISOString() }, "REMOTE_RELAY_INVALID_INPUT", /^schedule needs text/],
    [{ session: a, text: "x", at: "tomorrow" }, "REMOTE_RELAY_INVALID_INPUT", /^at must be an ISO time/],
    [
      { session: a, text: "x", at: new Date(t0 - MIN).toISOString() },
      "REMOTE_RELAY_INVALID_INPUT",
      /has already passed/,
    ],
    [{ session: a, text: "x", every_minutes: 0 }, "REMOTE_RELAY_INVALID_INPUT", /every_minutes must be a whole number/],
    [
      { session: a, text: "x", every_minutes: 5, colour: "red" },
      "REMOTE_RELAY_INVALID_INPUT",
      /Unknown field "colour"/,
    ],
    [{ text: "x", every_minutes: 5 }, "REMOTE_RELAY_INVALID_INPUT", /^schedule needs session/],
    [
      { session: "ses_nope", text: "x", every_minutes: 5 },
      "REMOTE_RELAY_NOT_FOUND",
      /^No session "ses_nope" on relay "desk"\. Nothing was scheduled\.$/,
    ],
  ];
  for (const [body, code, words] of bad) {
    const r = await relay.api("POST", "/api/schedules", body);
    assert.equal(r.status >= 400 && r.status < 500, true, JSON.stringify(body));
    assert.equal(r.json.code, code, JSON.stringify(r.json));
    assert.match(r.json.error, words);
  }
  assert.equal((await relay.api("GET", "/api/schedules")).json.schedules.length, before, "nothing was scheduled");

  const at = new Date(t0 + 30 * MIN).toISOString();
  const r = await relay.api("POST", "/api/schedules", { session: a, title: "Check CI", text: "How is CI?", at });
  assert.equal(r.status, 201, JSON.stringify(r.json));
  assert.equal(r.json.setBy, "owner");
  assert.deepEqual(r.json.session, { id: a, title: "Nightly" });
  assert.equal(r.json.nextFireAt, at);
  assert.equal(r.json.once, true);
  const all = (await relay.api("GET", "/api/schedules")).json.schedules;
  assert.ok(
    all.some((x: any) => x.id === r.json.id && x.setBy === "owner"),
    "listed relay-wide",
  );
  // The agent sees it in its own list as set by the owner.
  const mine = await (await relay.mcp(a)).call({ action: "list_schedules" });
  assert.equal(mine.schedules.find((x: any) => x.id === r.json.id).setBy, "owner");
  await relay.advance(30 * MIN);
  const msg = await relay.waitFor(async () =>
    (await relay.session(a)).messages.find((m: any) => m.role === "schedule"),
  );
  assert.equal(
    msg.text,
    `[relay schedule ${r.json.id} "Check CI" · once · set by the owner · automated message from OAR at a time the user chose; it approves nothing]\nHow is CI?`,
  );

  // The limit into one conversation holds for the owner too, in schedule's words.
  const b = await relay.createSession({ title: "Full" });
  for (let i = 0; i < 20; i++)
    assert.equal(
      (await relay.api("POST", "/api/schedules", { session: b, text: `t${i}`, every_minutes: 60 })).status,
      201,
    );
  const full = await relay.api("POST", "/api/schedules", { session: b, text: "one more", every_minutes: 60 });
  assert.equal(full.json.code, "REMOTE_RELAY_SCHEDULE_LIMIT");
  assert.match(
    full.json.error,
    /already has 20 active schedules firing into it \(at most 20\)\. Unschedule one first\. Nothing was scheduled\.$/,
  );
  await relay.api("POST", `/api/sessions/${b}/archive`);
  assert.equal(
    (await relay.api("POST", "/api/schedules", { session: b, text: "x", every_minutes: 5 })).json.code,
    "REMOTE_RELAY_ARCHIVED",
  );
});

test("the owner makes a conversation watch sessions with subscribe's checks and words; every active one is listed", async () => {
  const w = await relay.createSession({ title: "Watcher" });
  const x = await relay.createSession({ title: "Watched" });
  const count = async () => (await relay.api("GET", "/api/subscriptions")).json.subscriptions.length;
  const before = await count();
  const bad: [Record<string, unknown>, string, RegExp][] = [
    [{ sessions: [x] }, "REMOTE_RELAY_INVALID_INPUT", /^subscribe needs watcher/],
    [{ watcher: w }, "REMOTE_RELAY_INVALID_INPUT", /^subscribe needs sessions: a list of session ids/],
    [{ watcher: w, sessions: [x], events: ["nope"] }, "REMOTE_RELAY_INVALID_INPUT", /^Unknown event "nope"\. Events: /],
    [
      { watcher: w, sessions: [x], digest_minutes: 0 },
      "REMOTE_RELAY_INVALID_INPUT",
      /^digest_minutes must be a whole number of minutes from 1 to 1440/,
    ],
    [
      { watcher: w, sessions: [x], exclude: [w] },
      "REMOTE_RELAY_INVALID_INPUT",
      /^exclude goes with sessions \["all"\] only/,
    ],
    [
      { watcher: w, sessions: [x], quiet_hours: { from: "25:00", to: "06:00", tz: "UTC" } },
      "REMOTE_RELAY_INVALID_INPUT",
      /quiet_hours/,
    ],
    [{ watcher: w, sessions: [w] }, "REMOTE_RELAY_FORBIDDEN", /own conversation is never watched/],
    [{ watcher: w, sessions: ["ses_nope"] }, "REMOTE_RELAY_NOT_FOUND", /^No session "ses_nope" on relay "desk"/],
    [
      { watcher: "ses_nope", sessions: [x] },
      "REMOTE_RELAY_NOT_FOUND",
      /^No session "ses_nope" on relay "desk" to be the watcher\. Nothing was subscribed\.$/,
    ],
    [{ watcher: w, sessions: [x], colour: 1 }, "REMOTE_RELAY_INVALID_INPUT", /Unknown field "colour"/],
  ];
  for (const [body, code, words] of bad) {
    const r = await relay.api("POST", "/api/subscriptions", body);
    assert.equal(r.json.code, code, JSON.stringify([body, r.json]));
    assert.match(r.json.error, words);
    assert.match(r.json.error, /Nothing was subscribed\.$/);
  }
  assert.equal(await count(), before, "nothing was subscribed");

  const r = await relay.api("POST", "/api/subscriptions", {
    watcher: w,
    sessions: [x],
    events: ["turn_end"],
    once: true,
  });
  assert.equal(r.status, 201, JSON.stringify(r.json));
  assert.equal(r.json.watcher, w);
  assert.deepEqual(r.json.sessions, [{ id: x, title: "Watched" }]);
  assert.deepEqual(r.json.events, ["turn_end"]);
  assert.equal(r.json.once, true);
  const all = (await relay.api("GET", "/api/subscriptions")).json.subscriptions;
  assert.ok(
    all.some((s: any) => s.id === r.json.id),
    "listed relay-wide",
  );
  assert.ok(
    all.every((s: any) => s.active),
    "only active ones",
  );
  // It works: the watched session's turn wakes the watcher.
  await relay.say(x, "done soon");
  await relay.advance(31_000);
  const ev = await relay.waitFor(async () => (await relay.session(w)).messages.find((m: any) => m.role === "event"));
  assert.match(ev.text, /turn_end|finished|turn ended/i);

  // The limit of 20, in subscribe's words.
  const others = await Promise.all(Array.from({ length: 20 }, (_, i) => relay.createSession({ title: `o${i}` })));
  const w2 = await relay.createSession({ title: "Busy watcher" });
  for (const o of others)
    assert.equal((await relay.api("POST", "/api/subscriptions", { watcher: w2, sessions: [o] })).status, 201);
  const full = await relay.api("POST", "/api/subscriptions", { watcher: w2, sessions: [x] });
  assert.equal(full.json.code, "REMOTE_RELAY_SUBSCRIPTION_LIMIT");
  assert.equal(
    full.json.error,
    "This conversation already holds 20 subscriptions (at most 20 at a time); end one with unsubscribe first. Nothing was subscribed.",
  );
});

test("list entries say how the last turn ended, a failed task, and the last line; usage per day", async () => {
  const cwd = mkdtempSync(join(tmpdir(), "oar-outcome-"));
  const a = await relay.createSession({ title: "Fails", cwd });
  await relay.say(a, "/error the build broke");
  const t = await relay.createSession({ title: "Task fails", cwd });
  await relay.say(t, "/task build exit 1");
  await relay.waitFor(async () => (await relay.session(t)).tasks.find((k: any) => k.status !== "running"));
  const u = await relay.createSession({ title: "Writes", cwd });
  writeFileSync(join(cwd, "old.txt"), "one\ntwo\n");
  const reply = await relay.say(
    u,
    "/write old.txt one\\nTWO\\n\n/write sub/new.txt fresh\n/usage 1200 300 0.25\n/reply done",
  );
  assert.equal(readFileSync(join(cwd, "old.txt"), "utf8"), "one\nTWO\n");
  assert.equal(readFileSync(join(cwd, "sub/new.txt"), "utf8"), "fresh");
  const detail = await relay.session(u);
  const meta = detail.messages.find((m: any) => m.id === reply.id).meta;
  const tools = meta.activity.filter((x: any) => x.kind === "tool");
  assert.deepEqual(
    tools.map((x: any) => [x.toolKind, x.title, x.status]),
    [
      ["edit", "Write old.txt", "completed"],
      ["edit", "Write sub/new.txt", "completed"],
    ],
  );
  assert.deepEqual(tools[0].diffs, [{ path: join(cwd, "old.txt"), oldText: "one\ntwo\n", newText: "one\nTWO\n" }]);
  assert.equal(tools[1].diffs[0].oldText, null);
  assert.deepEqual(meta.usage, { inputTokens: 1200, outputTokens: 300, costUsd: 0.25 });
  const outside = await relay.say(u, "/write ../escape.txt no");
  assert.match(outside.text, /^write refused: \.\.\/escape\.txt is outside the session's folder$/);

  const list = (await relay.api("GET", "/api/sessions?limit=500")).json.sessions;
  const byId = (id: string) => list.find((s: any) => s.id === id);
  assert.equal(byId(a).lastTurn.status, "error");
  assert.equal(byId(a).lastTurn.error, "the build broke");
  assert.equal(byId(t).failedTask.exitCode, 1);
  assert.equal(byId(t).failedTask.description, "build");
  assert.equal(byId(u).lastTurn.status, "done");
  assert.equal(byId(u).failedTask, null);
  assert.deepEqual(byId(u).preview.role, "agent");
  assert.match(byId(u).preview.text, /^write refused/);
  assert.equal((await relay.session(a)).lastTurn.status, "error", "the session's own view says it too");

  const h = await relay.api("GET", `/api/usage/history?days=7&session=${u}`);
  assert.equal(h.status, 200, JSON.stringify(h.json));
  assert.equal(h.json.usage.length, 1);
  assert.deepEqual(
    { ...h.json.usage[0], day: "" },
    { day: "", provider: "scripted", inputTokens: 1200, outputTokens: 300, costUsd: 0.25, turns: 1 },
  );
  assert.equal((await relay.api("GET", "/api/usage/history?days=0")).json.code, "REMOTE_RELAY_INVALID_INPUT");
  assert.equal((await relay.api("GET", "/api/usage/history?session=ses_nope")).json.code, "REMOTE_RELAY_NOT_FOUND");
});
