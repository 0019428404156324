// Helpers for the core tests (test/core-*.test.ts): driving relay_tool from inside a real
// scripted turn, allowing the approval cards such a call raises, raw MCP requests, and
// counting the relay's worker processes.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { realSleep, TestRelay } from "./relay-process.ts";

// The machine is shared (2 cores, many relays and agent processes at once): polling for real
// process work in the core tests waits up to 90 s instead of the harness's 20 s. Only waits
// on processes grow; no assertion depends on time.
const SLOW_MS = 90_000;
const say = TestRelay.prototype.say;
TestRelay.prototype.say = function (sessionId: string, text: string, timeoutMs = SLOW_MS) {
  return say.call(this, sessionId, text, Math.max(timeoutMs, SLOW_MS));
};
const waitFor = TestRelay.prototype.waitFor;
TestRelay.prototype.waitFor = function <T>(
  fn: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  timeoutMs = SLOW_MS,
) {
  return waitFor.call(this, fn, Math.max(timeoutMs, SLOW_MS)) as Promise<T>;
};

/** A task shell that runs, silently, until the agent that started it is gone: a running task
 * that cannot outlast a slow test run, nor the test (an ended relay ends its agents). */
export const UNTIL_AGENT_ENDS = "while kill -0 $PPID 2>/dev/null; do sleep 1; done";

/** The JSON of the `tool: …` line(s) of a scripted reply. */
export function toolResults(reply: { text: string }): any[] {
  return reply.text
    .split("\n")
    .filter((l) => l.startsWith("tool: "))
    .map((l) => JSON.parse(l.slice("tool: ".length)));
}

/** Allows every approval card raised in `sessionId` until `until` settles. */
export async function allowCardsUntil(relay: TestRelay, sessionId: string, until: Promise<unknown>): Promise<string[]> {
  let settled = false;
  until.then(
    () => (settled = true),
    () => (settled = true),
  );
  const allowed: string[] = [];
  while (!settled) {
    const r = await relay.api("GET", `/api/cards?session=${sessionId}`);
    for (const c of r.json.cards ?? []) {
      const d = await relay.api("POST", `/api/cards/${c.id}`, { decision: "allow" });
      if (d.status === 200) allowed.push(c.id);
    }
    await realSleep(40);
  }
  return allowed;
}

/** Runs `/tool JSON` as the owner's message in `sessionId` (a real turn), allowing any card. */
export async function agentTool(
  relay: TestRelay,
  sessionId: string,
  args: Record<string, unknown>,
  timeoutMs = SLOW_MS,
): Promise<any> {
  const reply = relay.say(sessionId, `/tool ${JSON.stringify(args)}`, timeoutMs);
  await allowCardsUntil(relay, sessionId, reply);
  const results = toolResults(await reply);
  if (results.length !== 1) throw new Error(`expected one tool line, got: ${(await reply).text}`);
  return results[0];
}

/** create_session from inside a turn of `starter` (its first one raises a card, allowed here). */
export async function agentCreate(relay: TestRelay, starter: string, args: Record<string, unknown>): Promise<any> {
  const r = await agentTool(relay, starter, { action: "create_session", relay: "this", ...args });
  if (!r.ok) throw new Error(`create_session refused: ${JSON.stringify(r)}`);
  return r;
}

/** PIDs of the agent worker processes: the children of the data folder's keeper (which
 * holds them across relay restarts), and the relay daemon's own (probes, or workers when
 * no keeper could start). */
export function workerPids(relay: TestRelay): number[] {
  const parents = [relay.proc.pid];
  try {
    parents.push(Number(readFileSync(join(relay.dataDir, "keeper.pid"), "utf8").trim()));
  } catch {}
  try {
    return execFileSync("pgrep", ["-P", parents.join(",")], { encoding: "utf8" })
      .split("\n")
      .filter(Boolean)
      .map(Number)
      .filter((pid) => !parents.includes(pid)); // the keeper is the relay's child too
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

/** One raw JSON-RPC POST to /mcp; the body is parsed from JSON or from the SSE `data:` line. */
export async function rawMcp(
  relay: TestRelay,
  token: string | null,
  body: unknown,
  sessionId?: string,
): Promise<{ status: number; sessionId: string | null; json: any }> {
  const r = await fetch(`${relay.url}/mcp`, {
    method: "POST",
    headers: {
      ...MCP_HEADERS,
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(sessionId ? { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-06-18" } : {}),
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await r.text();
  let json: any = null;
  const data = text
    .split("\n")
    .filter((l) => l.startsWith("data: "))
    .map((l) => l.slice(6))
    .pop();
  try {
    json = JSON.parse(data ?? text);
  } catch {
    json = text;
  }
  return { status: r.status, sessionId: r.headers.get("mcp-session-id"), json };
}

/** Opens an MCP session with raw requests; returns its id. */
export async function rawMcpOpen(relay: TestRelay, token: string): Promise<string> {
  const init = await rawMcp(relay, token, {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
  });
  if (init.status !== 200 || !init.sessionId)
    throw new Error(`initialize failed: ${init.status} ${JSON.stringify(init.json)}`);
  await rawMcp(relay, token, { jsonrpc: "2.0", method: "notifications/initialized" }, init.sessionId);
  return init.sessionId;
}

/** The agent token of a session (from the MCP entry its worker gets). */
export async function agentToken(relay: TestRelay, sessionId: string): Promise<string> {
  const entry = (await relay.api("GET", `/api/sessions/${sessionId}/mcp`)).json;
  return String(entry.headers.Authorization).replace(/^Bearer /, "");
}
