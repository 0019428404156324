// update_session (relay_tool §8.2): every rule through a real relay, the real MCP client and
// real scripted turns.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TestRelay } from "./helpers/relay-process.ts";
import { sayDeciding, toolLines } from "./helpers/settings-kit.ts";

let relay: TestRelay;
before(async () => {
  relay = await TestRelay.start();
});
after(() => relay.stop());

const ARGS =
  "relay, session, model, effort, mode, title, cwd, group, auto_compact_window, thinking_enabled, thinking_display";
const update = (session: string, more: Record<string, unknown>) => ({
  action: "update_session",
  relay: "this",
  session,
  ...more,
});
const cardsOf = async (session: string) => (await relay.api("GET", `/api/cards?session=${session}`)).json.cards;

test("refusals: no setting, other arguments, mayCreateSessions, own conversation, archived — nothing changes", async () => {
  const boss = await relay.createSession({ title: "boss" });
  const t = await relay.createSession({ title: "target" });
  const mcp = await relay.mcp(boss);

  let r = await mcp.call(update(t, {}));
  assert.equal(r.code, "REMOTE_RELAY_INVALID_INPUT");
  assert.match(
    r.error,
    /^update_session needs at least one setting: model, effort, mode, title, cwd, group, auto_compact_window, thinking_enabled, thinking_display\./,
  );
  assert.match(r.error, /Nothing was changed\.$/);

  r = await mcp.call(update(t, { title: "renamed", colour: "red" }));
  assert.equal(r.code, "REMOTE_RELAY_INVALID_INPUT");
  assert.equal(r.error, `update_session does not take: colour. Its arguments: ${ARGS}. Nothing was changed.`);

  r = await mcp.call(update(t, { title: "renamed", mayCreateSessions: true }));
  assert.equal(r.code, "REMOTE_RELAY_INVALID_INPUT");
  assert.equal(r.error, "Whether a session may start sessions is the owner's setting alone. Nothing was changed.");
  assert.equal((await relay.session(t)).mayCreateSessions, false);

  r = await mcp.call(update(boss, { title: "me" }));
  assert.equal(r.code, "REMOTE_RELAY_FORBIDDEN");

  const archived = await relay.createSession({ title: "old" });
  await relay.api("POST", `/api/sessions/${archived}/archive`);
  r = await mcp.call(update(archived, { title: "new" }));
  assert.equal(r.code, "REMOTE_RELAY_ARCHIVED");

  assert.equal((await relay.session(t)).title, "target");
  assert.equal((await relay.session(archived)).title, "old");
});

test("the whole call is checked before any card: model, effort, group, folder", async () => {
  const boss = await relay.createSession({ title: "checker" });
  const t = await relay.createSession({ title: "checked" });
  const mcp = await relay.mcp(boss);
  const file = join(mkdtempSync(join(tmpdir(), "oar-upd-")), "f.txt");
  writeFileSync(file, "x");
  // The caller has no running turn: a card would answer NO_ACTIVE_TURN, so each code below
  // proves its check ran before any card.
  const cases: [Record<string, unknown>, string, RegExp][] = [
    [
      { model: "scripted-9", effort: "low" },
      "REMOTE_RELAY_UNKNOWN_MODEL",
      /Unknown model 'scripted-9' for Scripted .*Nothing was changed\.$/,
    ],
    [{ effort: "max", title: "x" }, "REMOTE_RELAY_INVALID_INPUT", /effort "max" is not offered by Scripted/],
    [
      { group: "grp_doesnotexist", title: "x" },
      "REMOTE_RELAY_UNKNOWN_GROUP",
      /no session group with id "grp_doesnotexist"\. Groups there: .*Nothing was changed\.$/,
    ],
    [{ cwd: "relative/dir", title: "x" }, "REMOTE_RELAY_INVALID_INPUT", /not an absolute path/],
    [{ cwd: "/no/such/folder/anywhere", title: "x" }, "REMOTE_RELAY_INVALID_INPUT", /does not exist/],
    [{ cwd: file, title: "x" }, "REMOTE_RELAY_INVALID_INPUT", /is not a directory/],
  ];
  for (const [args, code, text] of cases) {
    const r = await mcp.call(update(t, args));
    assert.equal(r.code, code, JSON.stringify(r));
    assert.match(r.error, text);
  }
  const s = await relay.session(t);
  assert.equal(s.title, "checked");
  assert.equal(s.effort, null);
  assert.equal(s.model, "scripted-1");
  assert.deepEqual(await cardsOf(boss), []);
});

test("a call that changes nothing returns changed: [] and asks nobody; settings has every field", async () => {
  const boss = await relay.createSession({ title: "noop" });
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), "oar-noop-")));
  const t = await relay.createSession({ title: "same", cwd });
  const mcp = await relay.mcp(boss);
  // Not this conversation's session, and no running turn: any card would be NO_ACTIVE_TURN.
  const r = await mcp.call(
    update(t, { title: "same", model: "scripted-1", mode: "agent", cwd, thinking_enabled: true }),
  );
  assert.equal(r.ok, true, JSON.stringify(r));
  assert.deepEqual(r.changed, []);
  assert.equal(r.summary, `update_session → desk session ${t}: nothing changed`);
  assert.deepEqual(r.settings, {
    model: "scripted-1",
    effort: null,
    mode: "agent",
    auto_compact_window: null,
    title: "same",
    group: null,
    thinking_enabled: null,
    thinking_display: null,
    cwd,
  });
  assert.match(
    r.note,
    /apply to Claude sessions only \(Claude API included\); they change nothing for this Scripted session/,
  );
  assert.deepEqual(await cardsOf(boss), []);
});

test("another session needs Allow once per conversation and relay: NO_ACTIVE_TURN, Deny, Allow, then free", async () => {
  const boss = await relay.createSession({ title: "orchestrator" });
  const t = await relay.createSession({ title: "worker A" });
  const t2 = await relay.createSession({ title: "worker B" });
  const g = (await relay.api("POST", "/api/groups", { name: "Release 2.4" })).json;
  const mcp = await relay.mcp(boss);
  const call = update(t, { model: "scripted-2", effort: "low", group: "release 2.4" });

  let r = await mcp.call(call);
  assert.equal(r.code, "REMOTE_RELAY_NO_ACTIVE_TURN");

  const denied = await sayDeciding(relay, boss, toolLines(call), "deny");
  assert.equal(denied.results[0].code, "REMOTE_RELAY_PERMISSION");
  assert.equal(denied.cards.length, 1);
  assert.equal(denied.cards[0].targetSession, t);
  assert.match(denied.cards[0].text, new RegExp(`update_session on relay "desk" · session "worker A" \\(${t}\\)`));
  assert.match(denied.cards[0].text, new RegExp(`Model: scripted-2 · Effort: low · Group: Release 2.4 \\(${g.id}\\)`));
  const s = await relay.session(t);
  assert.equal(s.model, "scripted-1");
  assert.equal(s.group, null);

  const allowed = await sayDeciding(relay, boss, toolLines(call), "allow");
  r = allowed.results[0];
  assert.equal(r.ok, true, JSON.stringify(r));
  assert.deepEqual(r.changed, ["model", "effort", "group"]);
  assert.equal(r.summary, `update_session → desk session ${t}: model, effort, group`);
  assert.deepEqual(r.settings.group, { id: g.id, name: "Release 2.4", role: "member" });
  assert.equal(r.settings.model, "scripted-2");
  assert.equal(r.settings.effort, "low");
  assert.equal(r.groupCreated, undefined);
  // Later turns run on the new model.
  assert.equal((await relay.say(t, "/model")).text, "scripted-2");

  // Allow covered this conversation's later changes to other sessions here: no card, no turn needed.
  r = await mcp.call(update(t2, { title: "worker B2" }));
  assert.equal(r.ok, true, JSON.stringify(r));
  assert.equal((await relay.session(t2)).title, "worker B2");
  // Another conversation is asked again.
  const other = await relay.mcp(await relay.createSession({ title: "stranger" }));
  assert.equal((await other.call(update(t2, { title: "x" }))).code, "REMOTE_RELAY_NO_ACTIVE_TURN");
});

test("sessions this conversation started are free to change; ask mode adds the write card", async () => {
  const boss = await relay.createSession({ title: "starter" });
  const started = await sayDeciding(
    relay,
    boss,
    toolLines({ action: "create_session", relay: "this", title: "child", text: "hi" }),
    "allow",
  );
  const child = started.results[0].session;
  assert.ok(child, JSON.stringify(started.results[0]));
  const mcp = await relay.mcp(boss);
  let r = await mcp.call(update(child, { title: "child renamed", mode: "plan" }));
  assert.equal(r.ok, true, JSON.stringify(r));
  assert.deepEqual(r.changed, ["mode", "title"]);
  assert.equal((await relay.session(child)).mode, "plan");

  await relay.api("PATCH", `/api/sessions/${boss}`, { mode: "ask" });
  r = await mcp.call(update(child, { title: "in ask mode" }));
  assert.equal(r.code, "REMOTE_RELAY_NO_ACTIVE_TURN");
  const asked = await sayDeciding(relay, boss, toolLines(update(child, { title: "in ask mode" })), "allow");
  assert.equal(asked.results[0].ok, true, JSON.stringify(asked.results[0]));
  assert.equal(asked.cards.length, 1);
  assert.match(asked.cards[0].text, /ask mode/);
  assert.doesNotMatch(asked.cards[0].text, /did not start/);
  assert.equal((await relay.session(child)).title, "in ask mode");
});

test("groups: a new name creates a group (groupCreated), names match case-insensitively, ambiguous names need the id, none leaves", async () => {
  const boss = await relay.createSession({ title: "grouper" });
  const a = await relay.createSession({ title: "a" });
  const b = await relay.createSession({ title: "b" });
  await sayDeciding(relay, boss, toolLines(update(a, { title: "a" })), "allow"); // nothing to change: no card, no grant
  const granted = await sayDeciding(relay, boss, toolLines(update(a, { group: "Nightly Build" })), "allow");
  const r = granted.results[0];
  assert.equal(r.ok, true, JSON.stringify(r));
  assert.deepEqual(r.changed, ["group"]);
  assert.equal(r.groupCreated.name, "Nightly Build");
  assert.match(r.groupCreated.id, /^grp_/);
  assert.deepEqual(r.settings.group, { id: r.groupCreated.id, name: "Nightly Build", role: "head" });
  const mcp = await relay.mcp(boss);

  const r2 = await mcp.call(update(b, { group: "NIGHTLY build" }));
  assert.equal(r2.ok, true, JSON.stringify(r2));
  assert.equal(r2.groupCreated, undefined);
  assert.deepEqual(r2.settings.group, { id: r.groupCreated.id, name: "Nightly Build", role: "member" });

  const d1 = (await relay.api("POST", "/api/groups", { name: "Dup" })).json;
  const d2 = (await relay.api("POST", "/api/groups", { name: "dup" })).json;
  const amb = await mcp.call(update(b, { group: "DUP", title: "b2" }));
  assert.equal(amb.code, "REMOTE_RELAY_UNKNOWN_GROUP");
  assert.match(amb.error, /has 2 session groups named "DUP": .*Pass the id\. Nothing was changed\.$/);
  assert.deepEqual(amb.groups.map((g: any) => g.id).sort(), [d1.id, d2.id].sort());
  assert.equal((await relay.session(b)).title, "b");
  const byId = await mcp.call(update(b, { group: d2.id }));
  assert.deepEqual(byId.settings.group, { id: d2.id, name: "dup", role: "member" });

  const out = await mcp.call(update(b, { group: "none" }));
  assert.deepEqual(out.changed, ["group"]);
  assert.equal(out.settings.group, null);
  const again = await mcp.call(update(b, { group: "None" }));
  assert.deepEqual(again.changed, []);
});

test("lifetimes: an agent's group disappears when empty, the owner's stays empty and can be named again", async () => {
  const boss = await relay.createSession({ title: "lifer" });
  const x = await relay.createSession({ title: "x" });
  const y = await relay.createSession({ title: "y" });
  const owners = (await relay.api("POST", "/api/groups", { name: "Owner keeps" })).json;
  const made = await sayDeciding(
    relay,
    boss,
    toolLines(update(x, { group: "Agent made" }), update(y, { group: "Owner keeps" })),
    "allow",
  );
  const agentGroup = made.results[0].groupCreated.id;
  assert.equal(made.results[1].settings.group.id, owners.id);
  const mcp = await relay.mcp(boss);

  await mcp.call(update(x, { group: "none" }));
  await mcp.call(update(y, { group: "none" }));
  const groups = (await relay.api("GET", "/api/groups")).json.groups;
  assert.equal(
    groups.find((g: any) => g.id === agentGroup),
    undefined,
    "the agent's group is gone",
  );
  const kept = groups.find((g: any) => g.id === owners.id);
  assert.equal(kept.empty, true);
  assert.equal(kept.memberCount, 0);
  const info = await mcp.call({ action: "relay_info", relay: "this" });
  assert.equal(
    info.groups.find((g: any) => g.id === owners.id),
    undefined,
    "relay_info lists only groups with sessions",
  );
  // A name that was the agent group's now creates a new one; the owner's empty group is found by name.
  const re = await mcp.call(update(x, { group: "owner KEEPS" }));
  assert.equal(re.groupCreated, undefined);
  assert.equal(re.settings.group.id, owners.id);
  const fresh = await mcp.call(update(y, { group: "Agent made" }));
  assert.ok(fresh.groupCreated && fresh.groupCreated.id !== agentGroup);
});

test("folder: not started keeps it; a running CLI is relaunched there; a stopped one is not; busy refuses", async () => {
  const boss = await relay.createSession({ title: "mover" });
  const mcp = await relay.mcp(boss);
  const dir1 = realpathSync(mkdtempSync(join(tmpdir(), "oar-cwd1-")));
  const dir2 = realpathSync(mkdtempSync(join(tmpdir(), "oar-cwd2-")));

  const fresh = await relay.createSession({ title: "fresh" });
  const grant = await sayDeciding(relay, boss, toolLines(update(fresh, { cwd: dir1 })), "allow");
  let r = grant.results[0];
  assert.equal(r.ok, true, JSON.stringify(r));
  assert.deepEqual(r.changed, ["cwd"]);
  assert.equal(r.relaunched, false);
  assert.match(r.note, /has not started yet; it keeps this folder for its first start/);
  assert.equal(r.settings.cwd, dir1);

  const live = await relay.createSession({ title: "live" });
  await relay.say(live, "hello");
  r = await mcp.call(update(live, { cwd: dir2 }));
  assert.equal(r.relaunched, true, JSON.stringify(r));
  assert.equal(r.note, undefined);
  const started = await relay.say(live, "/task where pwd");
  const taskId = /task: (\S+) started/.exec(started.text)![1];
  const out = await relay.waitFor(async () => {
    const o = (await relay.api("GET", `/api/sessions/${live}/tasks/${taskId}/output`)).json;
    return o.lines?.some(Boolean) && o;
  });
  assert.deepEqual(out.lines.filter(Boolean), [dir2]);

  await relay.api("POST", `/api/sessions/${live}/kill`);
  r = await mcp.call(update(live, { cwd: dir1 }));
  assert.equal(r.relaunched, false);
  assert.match(r.note, /was not running, so it was not restarted; the folder is saved for its next start/);

  const busy = await relay.createSession({ title: "busy" });
  await relay.api("POST", `/api/sessions/${busy}/messages`, { text: "/hang" });
  await relay.waitFor(async () => (await relay.session(busy)).state === "running_turn");
  r = await mcp.call(update(busy, { cwd: dir1, title: "busy2" }));
  assert.equal(r.code, "REMOTE_RELAY_BUSY");
  assert.equal(
    r.error,
    "The session cannot move to another folder now: a turn is running there. Wait until it is idle. Nothing was changed.",
  );
  assert.equal((await relay.session(busy)).title, "busy");
  await relay.api("POST", `/api/sessions/${busy}/stop`);
  await relay.waitFor(async () => (await relay.session(busy)).state === "idle");

  const tasky = await relay.createSession({ title: "tasky" });
  await relay.say(tasky, "/task slow sleep 5");
  r = await mcp.call(update(tasky, { cwd: dir1 }));
  assert.equal(r.code, "REMOTE_RELAY_BUSY");
  assert.match(r.error, /^The session cannot move to another folder now: a background task runs there \("slow"/);
});

test("a step failing after others were written still lists them in changed", async () => {
  const boss = await relay.createSession({ title: "partial" });
  const t = await relay.createSession({ title: "half" });
  const g = (await relay.api("POST", "/api/groups", { name: "Vanishing" })).json;
  // The owner dissolves the group while the card waits, then allows.
  const res = await sayDeciding(
    relay,
    boss,
    toolLines(update(t, { title: "half done", group: g.id })),
    async (): Promise<"allow"> => {
      await relay.api("DELETE", `/api/groups/${g.id}`);
      return "allow";
    },
  );
  const r = res.results[0];
  assert.equal(r.ok, false);
  assert.equal(r.code, "REMOTE_RELAY_UNKNOWN_GROUP");
  assert.deepEqual(r.changed, ["title"]);
  assert.match(r.error, /was dissolved meanwhile\. Groups there: .*group was not changed; title was changed\.$/);
  const s = await relay.session(t);
  assert.equal(s.title, "half done");
  assert.equal(s.group, null);
});
