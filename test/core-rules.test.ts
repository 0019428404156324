// Rules for sessions on this relay (seed §7.3, contract §4.5, §6, §8): at most 4 working,
// one level only and mayCreateSessions, not on itself, "via agent" and "↗ from", the
// agent-prompt line, archived and unknown targets, models, providers and folders.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { TestRelay } from "./helpers/relay-process.ts";
import { agentCreate, agentTool } from "./helpers/core-helpers.ts";

let relay: TestRelay;
let lead: string;
let mcp: Awaited<ReturnType<TestRelay["mcp"]>>;
before(async () => {
  relay = await TestRelay.start({ name: "desk" });
  lead = await relay.createSession({ title: "Lead", cwd: relay.dataDir });
  mcp = await relay.mcp(lead);
});
after(() => relay.stop());

const sessions = async () => (await relay.api("GET", "/api/sessions?scope=all")).json.sessions as any[];
const stopTurn = (id: string) => relay.api("POST", `/api/sessions/${id}/stop`);
const idle = (id: string) => relay.waitFor(async () => (await relay.session(id)).state === "idle");

test("a session started by an agent: via agent, ↗ from, the prompt's first line, and its settings", async () => {
  const r = await agentCreate(relay, lead, { text: "first task\n/model", title: "Helper", wait_seconds: 60 });
  assert.equal(r.status, "done");
  assert.equal(r.title, "Helper");
  assert.equal(r.provider, "scripted");
  assert.equal(r.model, "scripted-1");
  assert.equal(r.mode, "agent");
  assert.equal(
    r.reply.text,
    'scripted-1\necho: [Prompt from an agent on this relay · session "Lead" · scripted-1 · acting for the user]\nfirst task',
  );
  const h = await relay.session(r.session);
  assert.equal(h.cwd, relay.dataDir, "the folder follows the starting session");
  assert.deepEqual(h.viaAgent, { session: lead, title: "Lead" });
  assert.equal(h.mayCreateSessions, false);
  const prompt = h.messages.find((m: any) => m.role === "user");
  assert.deepEqual(prompt.from, { relay: "desk", session: lead, title: "Lead", model: "scripted-1" });
  assert.match(
    prompt.text,
    /^\[Prompt from an agent on this relay · session "Lead" · scripted-1 · acting for the user\]\nfirst task/,
  );
  const list = await mcp.call({ action: "list_sessions", relay: "this" });
  const entry = list.sessions.find((s: any) => s.id === r.session);
  assert.deepEqual(entry.viaAgent, { session: lead, title: "Lead" });
  assert.equal(entry.mayCreateSessions, false);
  assert.equal(list.sessions.find((s: any) => s.id === lead).viaAgent, null);
  // A send carries the same badge and line.
  const s = await mcp.call({ action: "send", relay: "this", session: r.session, text: "more" });
  assert.match(
    s.reply.text,
    /^echo: \[Prompt from an agent on this relay · session "Lead" · scripted-1 · acting for the user\]\nmore$/,
  );
});

test("one level only: an agent-started session cannot create sessions until the owner allows it", async () => {
  const child = (await agentCreate(relay, lead, { text: "hi", title: "Child", wait_seconds: 30 })).session;
  const before = (await sessions()).length;
  const refused = await agentTool(relay, child, { action: "create_session", relay: "this", text: "grandchild" });
  assert.equal(refused.code, "REMOTE_RELAY_PERMISSION");
  assert.match(refused.error, /Only the owner can let this session start sessions\./);
  assert.equal((await sessions()).length, before);
  assert.equal((await relay.api("GET", `/api/cards?session=${child}`)).json.cards.length, 0);

  assert.equal((await relay.api("PATCH", `/api/sessions/${child}`, { mayCreateSessions: true })).status, 200);
  const read = await mcp.call({ action: "read_session", relay: "this", session: child });
  assert.equal(read.session.mayCreateSessions, true);
  const listed = (await mcp.call({ action: "list_sessions", relay: "this" })).sessions.find((s: any) => s.id === child);
  assert.equal(listed.mayCreateSessions, true);
  const ok = await agentCreate(relay, child, { text: "hello", title: "Grandchild", wait_seconds: 30 });
  assert.equal(ok.status, "done");
  assert.deepEqual((await relay.session(ok.session)).viaAgent, { session: child, title: "Child" });
});

test("not on itself: send, wait, stop and archive of the own conversation are FORBIDDEN and do nothing", async () => {
  const n = (await relay.session(lead)).messages.length;
  for (const action of ["send", "wait", "stop", "archive"]) {
    const r = await mcp.call({ action, relay: "this", session: lead, text: "me" });
    assert.equal(r.code, "REMOTE_RELAY_FORBIDDEN", action);
    assert.match(r.error, /the conversation it runs in/);
  }
  const s = await relay.session(lead);
  assert.equal(s.messages.length, n);
  assert.equal(s.archived, undefined);
});

test("an archived target is ARCHIVED for send; an unknown one NOT_FOUND; nothing is queued", async () => {
  const t = await relay.createSession({ title: "Old" });
  await relay.api("POST", `/api/sessions/${t}/archive`);
  const r = await mcp.call({ action: "send", relay: "this", session: t, text: "wake up" });
  assert.equal(r.code, "REMOTE_RELAY_ARCHIVED");
  assert.match(r.error, /Nothing was sent\.$/);
  assert.equal((await relay.session(t)).messages.length, 0);
  const listed = await mcp.call({ action: "list_sessions", relay: "this" });
  assert.equal(
    listed.sessions.some((s: any) => s.id === t),
    false,
  );
  const all = await mcp.call({ action: "list_sessions", relay: "this", scope: "all" });
  assert.equal(all.sessions.find((s: any) => s.id === t).archived, true);
  const again = await mcp.call({ action: "archive", relay: "this", session: t });
  assert.equal(again.ok, true);
  const gone = await mcp.call({ action: "send", relay: "this", session: "ses_gone", text: "x" });
  assert.equal(gone.code, "REMOTE_RELAY_NOT_FOUND");
});

test("unknown model: UNKNOWN_MODEL with suggestions and models, checked before anything happens", async () => {
  const t = await relay.createSession({ title: "Target" });
  const r = await mcp.call({ action: "send", relay: "this", session: t, text: "x", model: "scripted-3" });
  assert.equal(r.code, "REMOTE_RELAY_UNKNOWN_MODEL");
  assert.deepEqual(r.models, ["scripted-1", "scripted-2"]);
  assert.ok(r.suggestions.length >= 1 && r.suggestions.every((m: string) => r.models.includes(m)));
  assert.match(
    r.error,
    /^Unknown model 'scripted-3' for Scripted on relay "desk"; did you mean .*Valid ids: scripted-1, scripted-2\. Nothing was sent\.$/,
  );
  assert.equal((await relay.session(t)).messages.length, 0);
  const n = (await sessions()).length;
  // No running turn in Lead: a card would be NO_ACTIVE_TURN; the model is refused first.
  const c = await mcp.call({ action: "create_session", relay: "this", text: "x", model: "gpt-9" });
  assert.equal(c.code, "REMOTE_RELAY_UNKNOWN_MODEL");
  assert.match(c.error, /Nothing was created\.$/);
  assert.deepEqual(c.models, ["scripted-1", "scripted-2"]);
  assert.equal((await sessions()).length, n);
});

test("provider unavailable, OpenAI Image, unknown provider and bad folders are refused before any card", async () => {
  const n = (await sessions()).length;
  const claude = await mcp.call({ action: "create_session", relay: "this", text: "x", provider: "claude" });
  assert.equal(claude.code, "REMOTE_RELAY_PROVIDER_UNAVAILABLE");
  assert.match(claude.error, /Nothing was created\.$/);
  const key = await mcp.call({ action: "create_session", relay: "this", text: "x", provider: "deepseek" });
  assert.equal(key.code, "REMOTE_RELAY_PROVIDER_UNAVAILABLE");
  const image = await mcp.call({ action: "create_session", relay: "this", text: "x", provider: "openai-image" });
  assert.ok(image.ok === false);
  const nope = await mcp.call({ action: "create_session", relay: "this", text: "x", provider: "nope" });
  assert.equal(nope.code, "REMOTE_RELAY_INVALID_INPUT");
  const file = join(relay.dataDir, "a-file");
  writeFileSync(file, "x");
  for (const cwd of ["/no/such/folder", "relative/path", file]) {
    const r = await mcp.call({ action: "create_session", relay: "this", text: "x", cwd });
    assert.equal(r.code, "REMOTE_RELAY_INVALID_INPUT", cwd);
    assert.match(r.error, /Nothing was created\.$/);
  }
  assert.equal((await sessions()).length, n);
  assert.equal((await relay.api("GET", "/api/cards")).json.cards.length, 0);
});

test("at most 4 working sessions per starting conversation; a send to one already working is fine", async () => {
  const boss = await relay.createSession({ title: "Boss" });
  const boss2 = await relay.mcp(boss);
  const made: string[] = [];
  for (const title of ["W1", "W2", "W3"])
    made.push((await agentCreate(relay, boss, { text: "/hang", title, wait_seconds: 0 })).session);
  const quiet = (await agentCreate(relay, boss, { text: "done soon", title: "Quiet", wait_seconds: 30 })).session;
  made.push((await agentCreate(relay, boss, { text: "/hang", title: "W4", wait_seconds: 0 })).session);
  const n = (await sessions()).length;

  const fifth = await agentTool(relay, boss, { action: "create_session", relay: "this", text: "/hang", title: "W5" });
  assert.equal(fifth.code, "REMOTE_RELAY_LIMIT");
  assert.match(fifth.error, /at most 4/);
  assert.match(fifth.error, /Nothing was created\.$/);
  assert.equal((await sessions()).length, n);
  const toQuiet = await boss2.call({ action: "send", relay: "this", session: quiet, text: "wake", wait_seconds: 0 });
  assert.equal(toQuiet.code, "REMOTE_RELAY_LIMIT");
  assert.match(toQuiet.error, /Nothing was sent\.$/);
  assert.equal((await relay.session(quiet)).messages.length, 2);
  // A session already working does not count twice.
  const more = await boss2.call({ action: "send", relay: "this", session: made[0], text: "later", wait_seconds: 0 });
  assert.equal(more.status, "queued");
  // Sessions the conversation did not start do not count.
  const mine = await relay.createSession({ title: "Owner's" });
  assert.equal(
    (await boss2.call({ action: "send", relay: "this", session: mine, text: "hi", wait_seconds: 0 })).ok,
    true,
  );

  // When one finishes, there is room again.
  await stopTurn(made[1]);
  await idle(made[1]);
  const again = await agentTool(relay, boss, {
    action: "create_session",
    relay: "this",
    text: "ok",
    title: "W5",
    wait_seconds: 30,
  });
  assert.equal(again.ok, true, JSON.stringify(again));
  for (const id of made) await stopTurn(id);
  await stopTurn(made[0]);
});
