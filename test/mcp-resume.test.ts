// MCP sessions the relay no longer holds (it restarted, or evicted them at the
// maxMcpSessions cap) are taken up again under the id the client sends, when the request
// carries a valid agent token: a client that never re-initializes keeps relay_tool.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { TestRelay } from "./helpers/relay-process.ts";
import { agentToken, rawMcp, rawMcpOpen } from "./helpers/core-helpers.ts";

const relays: TestRelay[] = [];
after(async () => {
  for (const r of relays) await r.stop();
});

/** An SDK client acting as a session's agent, kept out of the harness (whose kill() closes
 * its own clients): it must outlive a relay restart. Records the session id of every POST. */
async function agentClient(relay: TestRelay, sessionId: string) {
  const entry = (await relay.api("GET", `/api/sessions/${sessionId}/mcp`)).json;
  const sent: (string | null)[] = [];
  const transport = new StreamableHTTPClientTransport(new URL(entry.url), {
    requestInit: { headers: entry.headers },
    fetch: (input, init) => {
      if ((init?.method ?? "GET") === "POST") sent.push(new Headers(init?.headers).get("mcp-session-id"));
      return fetch(input, init);
    },
  });
  const client = new Client({ name: "never-reconnects", version: "1" });
  client.onerror = () => {}; // its GET stream drops with the relay: expected here
  await client.connect(transport);
  const call = async (args: Record<string, unknown>) => {
    const r = (await client.callTool({ name: "relay_tool", arguments: args }, undefined, {
      timeout: 120_000,
      resetTimeoutOnProgress: true,
    })) as any;
    return { ...JSON.parse(r.content[0].text), isError: !!r.isError };
  };
  return { client, transport, sent, call };
}

test("a relay SIGKILLed and started again: the same client object, without reconnecting, keeps its MCP session id and gets real answers", async () => {
  const relay = await TestRelay.start({ name: "resume" });
  relays.push(relay);
  const a = await relay.createSession({ title: "A" });
  const agent = await agentClient(relay, a);
  const before = await agent.call({ action: "list_sessions", relay: "this" });
  assert.equal(before.ok, true);
  const sid = agent.transport.sessionId;
  assert.ok(sid);
  const url = relay.url;
  await relay.restart({ samePort: true });
  assert.equal(relay.url, url);
  const from = agent.sent.length;
  const after = await agent.call({ action: "list_sessions", relay: "this" });
  assert.equal(after.ok, true, JSON.stringify(after));
  assert.ok(
    after.sessions.some((s: any) => s.id === a),
    "a real answer from the new relay",
  );
  assert.equal(agent.transport.sessionId, sid, "the client did not re-initialize");
  assert.match(relay.output, new RegExp(`\\[mcp\\] MCP session ${sid!.slice(0, 8)}… of ${a} taken up again`));
  assert.ok(agent.sent.length > from);
  assert.deepEqual(
    agent.sent.slice(from),
    agent.sent.slice(from).map(() => sid),
    "every request after the restart carried the old id",
  );
  // The revived session is an ordinary one: more calls, and a send that reaches another agent.
  const b = await relay.createSession({ title: "B" });
  const sent = await agent.call({ action: "send", relay: "this", session: b, text: "after restart" });
  assert.equal(sent.status, "done", JSON.stringify(sent));
  assert.match(sent.reply.text, /after restart$/);
  await agent.client.close();
});

test("an evicted MCP session's next call works; a revived session counts under the cap like any other", async () => {
  const relay = await TestRelay.start({ name: "evict", env: { OAR_MCP_SESSIONS_MAX: "2" } });
  relays.push(relay);
  const s = await relay.createSession({ title: "S" });
  const t1 = await relay.createSession({ title: "T1" });
  const t2 = await relay.createSession({ title: "T2" });
  const first = await agentClient(relay, s);
  assert.equal((await first.call({ action: "list_relays" })).ok, true);
  const second = await agentClient(relay, s);
  const third = await agentClient(relay, s); // the cap is 2: the first (least recent) goes
  const sid = first.transport.sessionId;
  const from = first.sent.length;
  assert.equal((await first.call({ action: "list_relays" })).ok, true, "the evicted client's next call works");
  assert.equal(first.transport.sessionId, sid);
  assert.deepEqual(first.sent.slice(from), [sid]);
  // The revival evicted the least recent idle session (second). Both held sessions (the
  // revived first and third) are now in a call: second, coming back under its old id, is
  // refused rather than evicting them.
  const hang1 = first.call({ action: "send", relay: "this", session: t1, text: "/hang", wait_seconds: 300 });
  await relay.waitFor(async () => (await relay.session(t1)).state === "running_turn");
  const hang3 = third.call({ action: "send", relay: "this", session: t2, text: "/hang", wait_seconds: 300 });
  await relay.waitFor(async () => (await relay.session(t2)).state === "running_turn");
  await assert.rejects(second.call({ action: "list_relays" }), /maxMcpSessions 2/, "a revival respects the cap");
  await relay.advance(300_000);
  assert.equal((await hang1).status, "running");
  assert.equal((await hang3).status, "running");
  const secondSid = second.transport.sessionId;
  assert.equal((await second.call({ action: "list_relays" })).ok, true, "once a slot is idle it is taken up again");
  assert.equal(second.transport.sessionId, secondSid);
  for (const c of [first, second, third]) await c.client.close().catch(() => {});
});

test("revival keeps the rules: another conversation's token on a live or revived id is 403, no token 401, DELETE of an unknown id 404, an oversized body 413", async () => {
  const relay = await TestRelay.start({ name: "rules" });
  relays.push(relay);
  const a = await relay.createSession({ title: "A" });
  const b = await relay.createSession({ title: "B" });
  const ta = await agentToken(relay, a);
  const tb = await agentToken(relay, b);
  const read = (id: number) => ({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "relay_tool", arguments: { action: "list_relays" } },
  });
  // An id the relay never made, sent with a valid token, becomes that token's session.
  const revived = await rawMcp(relay, ta, read(1), "made-up-by-the-client");
  assert.equal(revived.status, 200, JSON.stringify(revived.json));
  assert.equal(revived.sessionId, "made-up-by-the-client");
  assert.equal(JSON.parse(revived.json.result.content[0].text).ok, true);
  const stolen = await rawMcp(relay, tb, read(2), "made-up-by-the-client");
  assert.equal(stolen.status, 403, "a revived id is bound to the token that revived it");
  assert.equal(stolen.json.error.data.code, "REMOTE_RELAY_FORBIDDEN");
  const live = await rawMcpOpen(relay, ta);
  assert.equal((await rawMcp(relay, tb, read(3), live)).status, 403);
  assert.equal((await rawMcp(relay, null, read(4), "never-seen")).status, 401);
  assert.equal((await rawMcp(relay, "not-a-token", read(5), "never-seen")).status, 401);
  const del = await fetch(`${relay.url}/mcp`, {
    method: "DELETE",
    headers: { authorization: `Bearer ${ta}`, "mcp-session-id": "never-seen", "mcp-protocol-version": "2025-06-18" },
  });
  assert.equal(del.status, 404, "nothing to revive for a DELETE");
  assert.equal((await del.json()).error.data.code, "REMOTE_RELAY_NOT_FOUND");
  // A GET stream for an unknown id is declined (405: no GET stream) and does not take a slot.
  const get = await fetch(`${relay.url}/mcp`, {
    headers: {
      authorization: `Bearer ${ta}`,
      accept: "text/event-stream",
      "mcp-session-id": "get-only",
      "mcp-protocol-version": "2025-06-18",
    },
  });
  assert.equal(get.status, 405);
  assert.equal((await get.json()).error.data.code, "REMOTE_RELAY_INVALID_INPUT");
  // Body limits come before a revival.
  const huge = await rawMcp(
    relay,
    ta,
    {
      ...read(6),
      params: { name: "relay_tool", arguments: { action: "list_relays", pad: "x".repeat(5 * 1024 * 1024) } },
    },
    "big-one",
  );
  assert.equal(huge.status, 413);
  // The id named in the refused requests was never taken: b may still revive it as its own.
  const bOwn = await rawMcp(relay, tb, read(7), "never-seen");
  assert.equal(bOwn.status, 200);
  // An unsupported protocol version is refused (400, the SDK's text), no session revived.
  const r = await fetch(`${relay.url}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${ta}`,
      accept: "application/json, text/event-stream",
      "content-type": "application/json",
      "mcp-session-id": "odd-version",
      "mcp-protocol-version": "1999-01-01",
    },
    body: JSON.stringify(read(8)),
  });
  assert.equal(r.status, 400);
  await r.text();
});
