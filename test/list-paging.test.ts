// Listing at scale (contract §9.1): list_sessions and GET /api/sessions page by keyset
// (limit, cursor → nextCursor, total), most recently active first, filter by query,
// provider, state and group, and refuse bad values with REMOTE_RELAY_INVALID_INPUT.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { TestRelay, type McpSession } from "./helpers/relay-process.ts";
import { toolInTurn } from "./helpers/watch.ts";

let relay: TestRelay;
let mcp: McpSession;
let me: string;
const made: string[] = []; // oldest first

before(async () => {
  relay = await TestRelay.start({ name: "desk" });
  me = await relay.createSession({ title: "Caller" });
  // Each session one millisecond more recent than the one before.
  for (let i = 0; i < 12; i++) {
    await relay.advance(1);
    made.push(
      await relay.createSession({
        title: i === 3 ? "Überprüfung Release" : `Paged ${i}`,
        cwd: i === 5 ? "/tmp" : relay.dataDir,
      }),
    );
  }
  mcp = await relay.mcp(me);
});
after(() => relay.stop());

const list = (args: Record<string, unknown> = {}) => mcp.call({ action: "list_sessions", relay: "this", ...args });

test("list_sessions pages by limit and cursor, newest first, with total and nextCursor", async () => {
  const first = await list({ limit: 5 });
  assert.equal(first.ok, true);
  assert.equal(first.total, 13);
  assert.deepEqual(
    first.sessions.map((s: any) => s.id),
    made.slice(-5).reverse(),
  );
  assert.equal(typeof first.nextCursor, "string");
  const seen: string[] = first.sessions.map((s: any) => s.id);
  let cursor = first.nextCursor;
  let pages = 1;
  while (cursor) {
    const p = await list({ limit: 5, cursor });
    assert.equal(p.total, 13);
    seen.push(...p.sessions.map((s: any) => s.id));
    cursor = p.nextCursor;
    pages++;
  }
  assert.equal(pages, 3);
  assert.deepEqual(seen, [...made].reverse().concat(me));
  // The default page is 50: everything here fits, and the last page says so.
  const all = await list();
  assert.equal(all.sessions.length, 13);
  assert.equal(all.nextCursor, null);
  // A list entry carries no agent token.
  const entry = (await relay.api("GET", `/api/sessions/${made[0]}/mcp`)).json;
  assert.ok(!JSON.stringify(all).includes(entry.headers.Authorization.slice(7)));
});

test("a cursor stays valid while sessions are added: the next page goes on where the last ended", async () => {
  const p1 = await list({ limit: 4 });
  await relay.advance(1);
  const fresh = await relay.createSession({ title: "Added between pages" });
  const p2 = await list({ limit: 4, cursor: p1.nextCursor });
  assert.deepEqual(
    p2.sessions.map((s: any) => s.id),
    [...made].reverse().slice(4, 8),
  );
  assert.equal(p2.total, 14);
  // The new session leads a fresh first page.
  assert.equal((await list({ limit: 1 })).sessions[0].id, fresh);
  await relay.api("POST", `/api/sessions/${fresh}/archive`);
});

test("a cursor is no long run of token characters (masking looks each such run up), and one given in the earlier form still pages", async () => {
  const p1 = await list({ limit: 4 });
  assert.doesNotMatch(p1.nextCursor, /[A-Za-z0-9_-]{32}/);
  const [at, id] = [
    Number(p1.nextCursor.slice(0, p1.nextCursor.indexOf("."))),
    p1.nextCursor.slice(p1.nextCursor.indexOf(".") + 1),
  ];
  const earlier = Buffer.from(JSON.stringify([at, id])).toString("base64url");
  const viaNew = await list({ limit: 4, cursor: p1.nextCursor });
  const viaEarlier = await list({ limit: 4, cursor: earlier });
  assert.deepEqual(
    viaEarlier.sessions.map((s: any) => s.id),
    viaNew.sessions.map((s: any) => s.id),
  );
  assert.equal(viaNew.sessions.length, 4);
});

test("query matches title, id or folder, case-insensitively (also beyond ASCII)", async () => {
  const byTitle = await list({ query: "paged 1" });
  assert.deepEqual(byTitle.sessions.map((s: any) => s.title).sort(), ["Paged 1", "Paged 10", "Paged 11"]);
  assert.equal(byTitle.total, 3);
  assert.deepEqual(
    (await list({ query: "ÜBERPRÜF" })).sessions.map((s: any) => s.id),
    [made[3]],
  );
  assert.deepEqual(
    (await list({ query: made[7].slice(4, 12).toUpperCase() })).sessions.map((s: any) => s.id),
    [made[7]],
  );
  const inTmp = await list({ query: "/tmp" });
  assert.ok(inTmp.sessions.some((s: any) => s.id === made[5]));
  assert.ok(inTmp.sessions.every((s: any) => s.cwd.toLowerCase().includes("/tmp") || s.title.includes("/tmp")));
  // LIKE's wildcards are plain characters in a query.
  assert.equal((await list({ query: "%" })).total, 0);
  assert.equal((await list({ query: "Paged_1" })).total, 0);
});

test("provider, state and group filters; archived sessions only with scope all", async () => {
  assert.equal((await list({ provider: "scripted" })).total, 13);
  assert.equal((await list({ provider: "copilot" })).total, 0);

  const busy = made[2];
  await relay.api("POST", `/api/sessions/${busy}/messages`, { text: "/hang" });
  await relay.waitFor(async () => (await relay.session(busy)).inFlight);
  const running = await list({ state: "running_turn" });
  assert.deepEqual(
    running.sessions.map((s: any) => s.id),
    [busy],
  );
  assert.equal(running.sessions[0].state, "running_turn");
  const idle = await list({ state: "idle" });
  assert.equal(idle.total, 12);
  assert.ok(idle.sessions.every((s: any) => s.state === "idle"));
  assert.equal((await list({ state: "background_only" })).total, 0);
  await relay.api("POST", `/api/sessions/${busy}/stop`);
  await relay.waitFor(async () => (await relay.session(busy)).state === "idle");

  const g = (await relay.api("POST", "/api/groups", { name: "Release train" })).json;
  for (const s of [made[0], made[9]])
    assert.equal((await relay.api("POST", `/api/groups/${g.id}/sessions`, { session: s })).status < 300, true);
  const byName = await list({ group: "release TRAIN" });
  assert.deepEqual(
    byName.sessions.map((s: any) => s.id),
    [made[9], made[0]],
  );
  assert.equal((await list({ group: g.id })).total, 2);
  assert.equal((await list({ group: "No such group" })).code, "REMOTE_RELAY_UNKNOWN_GROUP");

  await relay.api("POST", `/api/sessions/${made[0]}/archive`);
  assert.equal((await list({ group: g.id })).total, 1);
  const withArchived = await list({ group: g.id, scope: "all" });
  assert.equal(withArchived.total, 2);
  assert.equal(withArchived.sessions.find((s: any) => s.id === made[0]).archived, true);
});

test("bad values are refused with REMOTE_RELAY_INVALID_INPUT and list nothing", async () => {
  for (const args of [
    { limit: 0 },
    { limit: 201 },
    { limit: 2.5 },
    { limit: "ten" },
    { state: "busy" },
    { cursor: "not-a-cursor" },
    { provider: "nope" },
    { scope: "some" },
  ]) {
    const r = await list(args);
    assert.equal(r.ok, false, JSON.stringify(args));
    assert.equal(r.code, "REMOTE_RELAY_INVALID_INPUT", JSON.stringify(args));
    assert.match(r.error, /Nothing was listed\.|Nothing was done\./);
    assert.equal(r.sessions, undefined);
  }
  assert.match((await list({ limit: 201 })).error, /limit must be a whole number from 1 to 200/);
  assert.equal((await list({ limit: 200 })).ok, true);
});

test("GET /api/sessions takes the same as query parameters (limit up to 500) and answers { sessions, total, nextCursor }", async () => {
  const get = (q: string) => relay.api("GET", `/api/sessions${q}`);
  const p1 = await get("?limit=3");
  assert.equal(p1.status, 200);
  assert.deepEqual(Object.keys(p1.json).sort(), ["nextCursor", "sessions", "total"]);
  assert.equal(p1.json.sessions.length, 3);
  const p2 = await get(`?limit=3&cursor=${encodeURIComponent(p1.json.nextCursor)}`);
  const viaMcp = await list({ limit: 6 });
  assert.deepEqual(
    [...p1.json.sessions, ...p2.json.sessions].map((s: any) => s.id),
    viaMcp.sessions.map((s: any) => s.id),
  );
  assert.equal(p1.json.total, viaMcp.total);
  assert.equal((await get("?limit=500")).status, 200);
  assert.equal((await get("?query=%C3%BCberpr%C3%BCfung")).json.sessions[0].id, made[3]);
  assert.equal(
    (await get("?state=idle&provider=scripted&scope=all")).json.total,
    (await list({ state: "idle", provider: "scripted", scope: "all" })).total,
  );
  for (const q of [
    "?limit=0",
    "?limit=501",
    "?limit=abc",
    "?limit=-1",
    "?state=busy",
    "?cursor=zzz",
    "?provider=nope",
    "?scope=some",
  ]) {
    const r = await get(q);
    assert.equal(r.status, 400, q);
    assert.equal(r.json.code, "REMOTE_RELAY_INVALID_INPUT", q);
    assert.equal(r.json.ok, false);
  }
  assert.equal((await get("?group=nothing-like-it")).json.code, "REMOTE_RELAY_UNKNOWN_GROUP");
});

test("an entry's watching counts what its all-scope and named subscriptions watch together", async () => {
  const watching = async () => (await list({ query: me })).sessions.find((s: any) => s.id === me).watching;
  const live = async () => (await list({ limit: 1 })).total;
  const first = await toolInTurn(relay, me, {
    action: "subscribe",
    relay: "this",
    sessions: ["all"],
    exclude: [made[4], made[6]],
  });
  assert.equal(first.result.ok, true, JSON.stringify(first.result));
  // Every live session but itself and the two left out.
  assert.equal(await watching(), (await live()) - 3);
  // A second all-scope one leaving out only one of them: together they leave out what both do.
  assert.equal(
    (await mcp.call({ action: "subscribe", relay: "this", sessions: ["all"], exclude: [made[4]] })).ok,
    true,
  );
  assert.equal(await watching(), (await live()) - 2);
  // Named: made[4] joins.
  assert.equal((await mcp.call({ action: "subscribe", relay: "this", sessions: [made[4]] })).ok, true);
  assert.equal(await watching(), (await live()) - 1);
  await mcp.call({ action: "unsubscribe", relay: "this", subscription_id: "all" });
  assert.equal(await watching(), 0);
});
