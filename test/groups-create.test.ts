// Session groups on create_session (relay_tool §8.2 "Into a group"): the starter's group,
// `group` by id or name, and every refusal — through a real relay and real scripted turns.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { TestRelay } from "./helpers/relay-process.ts";
import { sayDeciding, toolLines } from "./helpers/settings-kit.ts";

let relay: TestRelay;
before(async () => {
  relay = await TestRelay.start();
});
after(() => relay.stop());

const create = (more: Record<string, unknown>) => ({
  action: "create_session",
  relay: "this",
  text: "hello",
  wait_seconds: 0,
  ...more,
});
const sessionCount = async () => (await relay.api("GET", "/api/sessions?scope=all")).json.sessions.length;
const newGroup = async (name: string) => (await relay.api("POST", "/api/groups", { name })).json;

test("a session an agent starts joins its starter's group, which the starter heads; named after the head", async () => {
  const boss = await relay.createSession({ title: "Release captain" });
  const first = await sayDeciding(
    relay,
    boss,
    toolLines(create({ title: "child one" }), create({ title: "child two" })),
    "allow",
  );
  const [r1, r2] = first.results;
  assert.equal(r1.ok, true, JSON.stringify(r1));
  assert.match(r1.group.id, /^grp_/);
  assert.deepEqual(r1.group, { id: r1.group.id, name: "Release captain", role: "member" });
  assert.deepEqual(r2.group, r1.group);
  assert.equal(first.cards.length, 1, "the first create_session of a conversation asks once");

  const mcp = await relay.mcp(boss);
  const list = (await mcp.call({ action: "list_sessions", relay: "this" })).sessions;
  assert.deepEqual(list.find((s: any) => s.id === boss).group, {
    id: r1.group.id,
    name: "Release captain",
    role: "head",
  });
  assert.deepEqual(list.find((s: any) => s.id === r2.session).group, {
    id: r1.group.id,
    name: "Release captain",
    role: "member",
  });
  const info = await mcp.call({ action: "relay_info", relay: "this" });
  assert.deepEqual(
    info.groups.find((g: any) => g.id === r1.group.id),
    { id: r1.group.id, name: "Release captain", memberCount: 3 },
  );
});

test("group names an existing group by id or case-insensitive name; the card names it", async () => {
  const release = await newGroup("Release 2.4");
  const boss = await relay.createSession({ title: "joiner" });
  const res = await sayDeciding(
    relay,
    boss,
    toolLines(create({ title: "by name", group: "RELEASE 2.4" }), create({ title: "by id", group: release.id })),
    "allow",
  );
  const [byName, byId] = res.results;
  assert.deepEqual(byName.group, { id: release.id, name: "Release 2.4", role: "member" }, JSON.stringify(byName));
  assert.deepEqual(byId.group, { id: release.id, name: "Release 2.4", role: "member" });
  assert.equal(byName.groupWarning, undefined);
  assert.match(res.cards[0].text, new RegExp(`Group: Release 2\\.4 \\(${release.id}\\)`));
  // The starter did not join anything: the named group was used instead of its own.
  assert.equal((await relay.session(boss)).group, null);
  const members = (await relay.api("GET", `/api/groups/${release.id}`)).json.members.map((m: any) => m.id);
  assert.deepEqual(members.sort(), [byName.session, byId.session].sort());
});

test("UNKNOWN_GROUP before any card: the groups there (at most 20, groupsTotal), ambiguous names need the id", async () => {
  for (let i = 0; i < 22; i++) await newGroup(`Batch ${String(i).padStart(2, "0")}`);
  const total = (await relay.api("GET", "/api/groups")).json.groups.length;
  const boss = await relay.createSession({ title: "typo" });
  const mcp = await relay.mcp(boss);
  const before = await sessionCount();

  // No turn runs in this conversation: a card would be NO_ACTIVE_TURN, so the lookup came first.
  const r = await mcp.call(create({ group: "Relase" }));
  assert.equal(r.code, "REMOTE_RELAY_UNKNOWN_GROUP");
  assert.match(
    r.error,
    /^Relay "desk" has no session group "Relase"\. Groups there: .+ \(grp_[a-z0-9]+\), .+, and \d+ more\. No session was created\.$/,
  );
  assert.equal(r.groups.length, 20);
  assert.equal(r.groupsTotal, total);
  for (const g of r.groups) assert.match(r.error, new RegExp(`${g.name} \\(${g.id}\\)`));

  const d1 = await newGroup("Twins");
  const d2 = await newGroup("twins");
  const amb = await mcp.call(create({ group: "TWINS" }));
  assert.equal(amb.code, "REMOTE_RELAY_UNKNOWN_GROUP");
  assert.equal(
    amb.error,
    `Relay "desk" has 2 session groups named "TWINS": ${amb.groups.map((g: any) => `${g.name} (${g.id})`).join(", ")}. Pass the id. No session was created.`,
  );
  assert.deepEqual(amb.groups.map((g: any) => g.id).sort(), [d1.id, d2.id].sort());

  assert.equal(await sessionCount(), before);
  assert.deepEqual((await relay.api("GET", `/api/cards?session=${boss}`)).json.cards, []);
});

test("a group dissolved between lookup and start: same code, nothing created", async () => {
  const doomed = await newGroup("Doomed");
  const boss = await relay.createSession({ title: "too late" });
  const before = await sessionCount();
  const res = await sayDeciding(
    relay,
    boss,
    toolLines(create({ title: "never", group: "doomed" })),
    async (): Promise<"allow"> => {
      await relay.api("DELETE", `/api/groups/${doomed.id}`);
      return "allow";
    },
  );
  const r = res.results[0];
  assert.equal(r.code, "REMOTE_RELAY_UNKNOWN_GROUP", JSON.stringify(r));
  assert.match(
    r.error,
    new RegExp(
      `^Session group "Doomed" \\(${doomed.id}\\) on relay "desk" was dissolved before the session could start\\. Groups there: .*No session was created\\.$`,
    ),
  );
  assert.equal(await sessionCount(), before);
});

test("an older relay: create_session cannot take group, relay_info has no groups, update_session is unsupported", async () => {
  const old = await TestRelay.start({ name: "oldbox", emulateVersion: "0.9.15" });
  try {
    const boss = await old.createSession({ title: "old boss" });
    const mcp = await old.mcp(boss);
    const r = await mcp.call(create({ group: "Anything" }));
    assert.equal(r.code, "REMOTE_RELAY_UNSUPPORTED");
    assert.match(
      r.error,
      /^The target relay doesn't support groups on create_session yet: relay "oldbox" runs OAR 0\.9\.15.*No session was created\.$/,
    );
    const info = await mcp.call({ action: "relay_info", relay: "this" });
    assert.equal(info.groups, null);
    assert.match(info.groupsNote, /cannot list session groups.*create_session there cannot take group/);
    const u = await mcp.call({ action: "update_session", relay: "this", session: boss, title: "x" });
    assert.equal(u.code, "REMOTE_RELAY_UNSUPPORTED");
  } finally {
    await old.stop();
  }
});
