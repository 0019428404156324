// Session groups as they are shown and kept (relay_tool §8.1, §8.2): relay_info's groups,
// group in list_sessions / read_session, the owner's group API, and group lifetimes.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { TestRelay, type McpSession } from "./helpers/relay-process.ts";
import { sayDeciding, toolLines } from "./helpers/settings-kit.ts";

let relay: TestRelay;
let reader: McpSession;
before(async () => {
  relay = await TestRelay.start();
  reader = await relay.mcp(await relay.createSession({ title: "reader" }));
});
after(() => relay.stop());

const newGroup = async (name: string) => (await relay.api("POST", "/api/groups", { name })).json;
const put = (group: string, session: string) => relay.api("POST", `/api/groups/${group}/sessions`, { session });
const info = () => reader.call({ action: "relay_info", relay: "this" });

test("owner API: create (bare, empty), rename, move by hand, dissolve; refusals", async () => {
  const created = await relay.api("POST", "/api/groups", { name: "Docs sweep" });
  assert.equal(created.status, 201);
  assert.match(created.json.id, /^grp_/);
  assert.equal(created.json.name, "Docs sweep");
  assert.equal(created.json.empty, true);
  const g = created.json.id;
  const s = await relay.createSession({ title: "writer" });
  assert.equal((await put(g, s)).json.memberCount, 1);

  const renamed = await relay.api("PATCH", `/api/groups/${g}`, { name: "Docs sweep 2" });
  assert.equal(renamed.json.name, "Docs sweep 2");
  const listed = (await reader.call({ action: "list_sessions", relay: "this" })).sessions.find((x: any) => x.id === s);
  assert.deepEqual(listed.group, { id: g, name: "Docs sweep 2", role: "member" });
  assert.deepEqual(
    (await info()).groups.find((x: any) => x.id === g),
    { id: g, name: "Docs sweep 2", memberCount: 1 },
  );

  assert.equal((await relay.api("PATCH", `/api/groups/${g}`, { name: "" })).status, 400);
  assert.equal((await relay.api("PATCH", "/api/groups/grp_nothere", { name: "x" })).status, 404);
  assert.equal((await relay.api("POST", "/api/groups", {})).json.code, "REMOTE_RELAY_INVALID_INPUT");

  const gone = await relay.api("DELETE", `/api/groups/${g}`);
  assert.deepEqual(gone.json, { ok: true, id: g, dissolved: true });
  assert.equal((await relay.session(s)).group, null);
  assert.equal(
    (await relay.api("GET", "/api/groups")).json.groups.find((x: any) => x.id === g),
    undefined,
  );
  assert.equal((await relay.api("DELETE", `/api/groups/${g}`)).status, 404);
});

test("relay_info: at most 50 groups with sessions, most recently active first, groupsTotal", async () => {
  const ids: string[] = [];
  const sessions: string[] = [];
  for (let i = 0; i < 52; i++) {
    const g = await newGroup(`Lot ${i}`);
    const s = await relay.createSession({ title: `lot member ${i}` });
    await put(g.id, s);
    ids.push(g.id);
    sessions.push(s);
  }
  const empty = await newGroup("Nobody here");
  // Activity decides the order: the last session to speak puts its group first.
  await relay.advance(60_000);
  await relay.say(sessions[7], "ping");
  await relay.advance(60_000);
  await relay.say(sessions[3], "ping");

  const r = await info();
  assert.equal(r.groups.length, 50);
  assert.equal(r.groupsTotal, (await relay.api("GET", "/api/groups")).json.groups.filter((g: any) => !g.empty).length);
  assert.ok(r.groupsTotal >= 52);
  assert.deepEqual(
    r.groups.slice(0, 2).map((g: any) => g.id),
    [ids[3], ids[7]],
  );
  assert.deepEqual(Object.keys(r.groups[0]).sort(), ["id", "memberCount", "name"]);
  assert.equal(
    r.groups.find((g: any) => g.id === empty.id),
    undefined,
    "an empty group is not listed",
  );
});

test("read_session: group with the other members (at most 50), each with title, role, state, archived", async () => {
  const g = await newGroup("Big team");
  const members: string[] = [];
  for (let i = 0; i < 53; i++) {
    const s = await relay.createSession({ title: `mate ${i}` });
    await put(g.id, s);
    members.push(s);
  }
  const r = await reader.call({ action: "read_session", relay: "this", session: members[0] });
  assert.equal(r.group.id, g.id);
  assert.equal(r.group.name, "Big team");
  assert.equal(r.group.role, "member");
  assert.equal(r.group.members.length, 50);
  assert.ok(!r.group.members.some((m: any) => m.id === members[0]), "the session itself is not among the others");

  const small = await newGroup("Small team");
  const [a, b, c] = [
    await relay.createSession({ title: "a" }),
    await relay.createSession({ title: "b" }),
    await relay.createSession({ title: "c" }),
  ];
  for (const s of [a, b, c]) await put(small.id, s);
  await relay.api("POST", `/api/sessions/${c}/archive`);
  const rs = await reader.call({ action: "read_session", relay: "this", session: a });
  const byId = Object.fromEntries(rs.group.members.map((m: any) => [m.id, m]));
  assert.deepEqual(byId[b], { id: b, title: "b", role: "member", state: "idle" });
  assert.deepEqual(byId[c], { id: c, title: "c", role: "member", state: "idle", archived: true });
  // list_sessions hides the archived one but it is still a member (memberCount counts undeleted sessions).
  assert.equal((await info()).groups.find((x: any) => x.id === small.id).memberCount, 3);
});

test("lifetimes: an agent's group loses its head to the next member and disappears when its last session is deleted", async () => {
  const boss = await relay.createSession({ title: "Head session" });
  const res = await sayDeciding(
    relay,
    boss,
    toolLines({ action: "create_session", relay: "this", title: "Second", text: "hi", wait_seconds: 0 }),
    "allow",
  );
  const child = res.results[0].session;
  const gid = res.results[0].group.id;
  assert.equal(res.results[0].group.name, "Head session");

  await relay.api("DELETE", `/api/sessions/${boss}`);
  const afterHead = (await reader.call({ action: "list_sessions", relay: "this", query: child })).sessions.find(
    (s: any) => s.id === child,
  );
  assert.deepEqual(
    afterHead.group,
    { id: gid, name: "Second", role: "head" },
    "the remaining member heads it; the unnamed group shows its title",
  );

  await relay.api("DELETE", `/api/sessions/${child}`);
  assert.equal(
    (await relay.api("GET", "/api/groups")).json.groups.find((g: any) => g.id === gid),
    undefined,
  );
  assert.equal(
    (await info()).groups.find((g: any) => g.id === gid),
    undefined,
  );

  // The owner's group stays when its last session is deleted, shown as empty.
  const kept = await newGroup("Stays");
  const s = await relay.createSession({ title: "only" });
  await put(kept.id, s);
  await relay.api("DELETE", `/api/sessions/${s}`);
  const shown = (await relay.api("GET", "/api/groups")).json.groups.find((g: any) => g.id === kept.id);
  assert.equal(shown.empty, true);
  assert.equal(
    (await info()).groups.find((g: any) => g.id === kept.id),
    undefined,
  );
});
