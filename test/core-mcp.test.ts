// The MCP endpoint (contract §2): relay_tool listed with every field described,
// remote_relay executed but not listed, agent tokens bound to their MCP sessions, and
// progress notifications while a call blocks.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { TestRelay, realSleep } from "./helpers/relay-process.ts";
import { agentToken, rawMcp, rawMcpOpen } from "./helpers/core-helpers.ts";

// Progress goes out every OAR_PROGRESS_MS of real time (15 s by default); keep tests fast.
process.env.OAR_PROGRESS_MS = "150";

let relay: TestRelay;
let a: string;
let b: string;
before(async () => {
  relay = await TestRelay.start();
  a = await relay.createSession({ title: "A" });
  b = await relay.createSession({ title: "B" });
});
after(() => relay.stop());

test("tools/list lists exactly relay_tool: action plus every action's fields, each described", async () => {
  const mcp = await relay.mcp(a);
  assert.equal(mcp.client.getServerVersion()?.name, "relay", "Claude's agents see mcp__relay__relay_tool");
  const { tools } = await mcp.client.listTools();
  assert.deepEqual(
    tools.map((t) => t.name),
    ["relay_tool"],
  );
  const tool = tools[0];
  assert.ok(tool.description && tool.description.length > 40);
  const props = tool.inputSchema.properties as Record<string, any>;
  assert.deepEqual(tool.inputSchema.required, ["action"]);
  const actions: string[] = props.action.enum;
  for (const name of [
    "list_relays",
    "relay_info",
    "usage",
    "list_sessions",
    "read_session",
    "read_task_output",
    "send",
    "create_session",
    "wait",
    "stop",
    "archive",
  ]) {
    assert.ok(actions.includes(name), name);
  }
  // The fields of the core actions are all there.
  for (const f of [
    "relay",
    "session",
    "text",
    "wait_seconds",
    "mode",
    "model",
    "effort",
    "provider",
    "cwd",
    "repo",
    "branch",
    "title",
    "group",
    "message_id",
    "task_id",
    "lines",
    "last",
    "scope",
  ]) {
    assert.ok(props[f], `field ${f} missing`);
  }
  for (const [name, p] of Object.entries(props)) {
    assert.equal(typeof p.description, "string", `${name} has no description`);
    assert.ok(p.description.length >= 8, `${name}: ${p.description}`);
  }
});

test("the tool result is one text block of JSON, isError exactly when ok is false", async () => {
  const r = (await relay
    .mcp(a)
    .then((m) => m.client.callTool({ name: "relay_tool", arguments: { action: "list_relays" } }))) as any;
  assert.equal(r.content.length, 1);
  assert.equal(r.content[0].type, "text");
  assert.equal(JSON.parse(r.content[0].text).ok, true);
  assert.ok(!r.isError);
  const bad = (await relay
    .mcp(a)
    .then((m) => m.client.callTool({ name: "relay_tool", arguments: { action: "nope" } }))) as any;
  assert.equal(bad.isError, true);
  assert.equal(JSON.parse(bad.content[0].text).code, "REMOTE_RELAY_UNKNOWN_ACTION");
});

test("remote_relay is not listed but runs exactly like relay_tool", async () => {
  const mcp = await relay.mcp(a);
  const viaOld = await mcp.call({ action: "list_sessions", relay: "this" }, "remote_relay");
  const viaNew = await mcp.call({ action: "list_sessions", relay: "this" });
  assert.equal(viaOld.ok, true);
  assert.deepEqual(
    viaOld.sessions.map((s: any) => s.id),
    viaNew.sessions.map((s: any) => s.id),
  );
  const sent = await mcp.call({ action: "send", relay: "this", session: b, text: "old name" }, "remote_relay");
  assert.equal(sent.status, "done");
  assert.match(sent.reply.text, /old name$/);
  const other = (await mcp.client.callTool({ name: "some_other_tool", arguments: {} })) as any;
  assert.equal(other.isError, true);
});

test("an MCP session is bound to the token that opened it: another token on its id is refused and nothing runs", async () => {
  const ta = await agentToken(relay, a);
  const tb = await agentToken(relay, b);
  const c = await relay.createSession({ title: "C" });
  const sid = await rawMcpOpen(relay, ta);
  const call = {
    jsonrpc: "2.0",
    id: 7,
    method: "tools/call",
    params: {
      name: "relay_tool",
      arguments: { action: "send", relay: "this", session: c, text: "hijack", wait_seconds: 0 },
    },
  };
  const stolen = await rawMcp(relay, tb, call, sid);
  assert.equal(stolen.status, 403);
  assert.doesNotMatch(JSON.stringify(stolen.json), /"ok":\s*true/);
  const none = await rawMcp(relay, null, call, sid);
  assert.equal(none.status, 401);
  await realSleep(200);
  assert.equal((await relay.session(c)).messages.length, 0);
  // The rightful token still works on that MCP session: a harmless read.
  const own = await rawMcp(
    relay,
    ta,
    {
      jsonrpc: "2.0",
      id: 8,
      method: "tools/call",
      params: { name: "relay_tool", arguments: { action: "list_relays" } },
    },
    sid,
  );
  assert.equal(own.status, 200);
  assert.equal(JSON.parse(own.json.result.content[0].text).ok, true);
  // An MCP session id the relay does not hold, sent with a valid token, is taken up as that
  // token's (a restart or an eviction is invisible: test/mcp-resume.test.ts); bound to it,
  // another token on it is refused and nothing runs.
  const revived = await rawMcp(
    relay,
    ta,
    {
      jsonrpc: "2.0",
      id: 9,
      method: "tools/call",
      params: { name: "relay_tool", arguments: { action: "list_relays" } },
    },
    "no-such-session",
  );
  assert.equal(revived.status, 200);
  assert.equal((await rawMcp(relay, tb, call, "no-such-session")).status, 403);
  await realSleep(200);
  assert.equal((await relay.session(c)).messages.length, 0);
});

test("tool arguments that are not an object are a coded refusal; oversized or broken bodies are refused; no crash", async () => {
  const ta = await agentToken(relay, a);
  const sid = await rawMcpOpen(relay, ta);
  for (const args of [[1, 2], "list_relays", 42]) {
    const r = await rawMcp(
      relay,
      ta,
      { jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "relay_tool", arguments: args } },
      sid,
    );
    assert.equal(r.status, 200, JSON.stringify(r.json));
    const result = r.json.result;
    assert.ok(result, JSON.stringify(r.json));
    assert.equal(result.isError, true);
    assert.equal(JSON.parse(result.content[0].text).code, "REMOTE_RELAY_INVALID_INPUT");
  }
  const huge = await rawMcp(
    relay,
    ta,
    {
      jsonrpc: "2.0",
      id: 10,
      method: "tools/call",
      params: { name: "relay_tool", arguments: { action: "list_relays", pad: "x".repeat(5 * 1024 * 1024) } },
    },
    sid,
  );
  assert.equal(huge.status, 413);
  const garbage = await rawMcp(relay, ta, "{not json", sid);
  assert.ok(garbage.status >= 400 && garbage.status < 500);
  assert.equal((await fetch(`${relay.url}/api/health`)).status, 200);
});

test("refusals outside a tool call are JSON-RPC errors, word for word, with the contract's code where one applies", async () => {
  const ta = await agentToken(relay, a);
  const tb = await agentToken(relay, b);
  const sid = await rawMcpOpen(relay, ta);
  const list = {
    jsonrpc: "2.0",
    id: 11,
    method: "tools/call",
    params: { name: "relay_tool", arguments: { action: "list_relays" } },
  };
  const rpc = (code: number, message: string, data?: string) => ({
    jsonrpc: "2.0",
    error: { code, message, ...(data ? { data: { code: data } } : {}) },
    id: null,
  });
  const none = await rawMcp(relay, null, list, sid);
  assert.deepEqual([none.status, none.json], [401, rpc(-32001, "Unauthorized: a session's agent token is required.")]);
  const stolen = await rawMcp(relay, tb, list, sid);
  assert.deepEqual(
    [stolen.status, stolen.json],
    [
      403,
      rpc(
        -32001,
        "This MCP session belongs to another conversation's token. Nothing was done.",
        "REMOTE_RELAY_FORBIDDEN",
      ),
    ],
  );
  const huge = await rawMcp(relay, ta, { ...list, pad: "x".repeat(5 * 1024 * 1024) }, sid);
  assert.equal(huge.status, 413);
  assert.deepEqual(huge.json, rpc(-32600, huge.json.error.message, "REMOTE_RELAY_INVALID_INPUT"));
  assert.match(huge.json.error.message, /^The request body is larger than \d+ bytes/);
  const headers = {
    authorization: `Bearer ${ta}`,
    accept: "application/json, text/event-stream",
    "mcp-session-id": "never-held-by-this-relay",
  };
  const del = await fetch(`${relay.url}/mcp`, { method: "DELETE", headers });
  assert.deepEqual([del.status, await del.json()], [404, rpc(-32001, "Session not found", "REMOTE_RELAY_NOT_FOUND")]);
  const get = await fetch(`${relay.url}/mcp`, { method: "GET", headers });
  assert.equal(get.headers.get("allow"), "POST, DELETE");
  assert.deepEqual(
    [get.status, await get.json()],
    [
      405,
      rpc(-32000, "No GET stream for this MCP session: POST requests take it up again.", "REMOTE_RELAY_INVALID_INPUT"),
    ],
  );
  const old = await fetch(`${relay.url}/mcp`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json", "mcp-protocol-version": "1999-01-01" },
    body: JSON.stringify(list),
  });
  const oldBody = await old.json();
  assert.equal(old.status, 400);
  assert.match(oldBody.error.message, /^Bad Request: Unsupported protocol version: 1999-01-01 \(supported versions: /);
  assert.deepEqual(oldBody, rpc(-32000, oldBody.error.message));
  // Inside a call, a refusal is a tool result with isError, its text the usual { ok, code, error }.
  const tool = await rawMcp(relay, ta, { ...list, params: { name: "other_tool", arguments: {} } }, sid);
  assert.deepEqual(tool.json.result, {
    content: [
      {
        type: "text",
        text: JSON.stringify({
          ok: false,
          code: "REMOTE_RELAY_UNKNOWN_ACTION",
          error: 'Unknown tool "other_tool": this server has relay_tool.',
        }),
      },
    ],
    isError: true,
  });
});

test("progress notifications arrive while a send waits, when the request carries a progress token", async () => {
  const mcp = await relay.mcp(a);
  const target = await relay.createSession({ title: "slow" });
  const progress: unknown[] = [];
  const call = mcp.client.callTool(
    {
      name: "relay_tool",
      arguments: { action: "send", relay: "this", session: target, text: "/hang", wait_seconds: 60 },
    },
    undefined,
    { onprogress: (p) => progress.push(p), timeout: 60_000 },
  );
  await relay.waitFor(() => progress.length >= 2);
  await relay.advance(60_000);
  const r = JSON.parse(((await call) as any).content[0].text);
  assert.equal(r.status, "running");
  await relay.api("POST", `/api/sessions/${target}/stop`);
});

test("MCP sessions beyond the cap: the least recently used idle one goes, never one in the middle of a call", async () => {
  process.env.OAR_MCP_SESSIONS_MAX = "3";
  const small = await TestRelay.start({ name: "small" });
  delete process.env.OAR_MCP_SESSIONS_MAX;
  try {
    const s = await small.createSession({ title: "S" });
    const t = await small.createSession({ title: "T" });
    const waiting = await small.mcp(s);
    const call = waiting.call({ action: "send", relay: "this", session: t, text: "/hang", wait_seconds: 300 });
    await small.waitFor(async () => (await small.session(t)).state === "running_turn");
    const second = await small.mcp(s);
    await second.call({ action: "list_relays" });
    const third = await small.mcp(s);
    await third.call({ action: "list_relays" });
    const fourth = await small.mcp(s);
    assert.equal((await fourth.call({ action: "list_relays" })).ok, true);
    // The least recently used idle MCP session was closed; its client's next call takes it
    // up again under its old id (and the cap evicts the next least recent idle one: third).
    const secondSid = (second.client.transport as { sessionId?: string }).sessionId;
    assert.equal((await second.call({ action: "list_relays" })).ok, true);
    assert.equal((second.client.transport as { sessionId?: string }).sessionId, secondSid);
    assert.equal((await third.call({ action: "list_relays" })).ok, true);
    await small.advance(300_000);
    const r = await call;
    assert.equal(r.status, "running", "the call in progress kept its MCP session");
  } finally {
    await small.stop();
  }
});
