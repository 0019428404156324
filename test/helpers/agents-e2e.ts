// Shared steps of the real-CLI end-to-end tests (test/agents-*.test.ts): a relay whose
// workers are the pinned CLIs, the owner's prompts, permission cards, and waits long enough
// for a cold CLI start on a loaded machine (real processes: real time, never asserted).
import assert from "node:assert/strict";
import type { TestRelay } from "./relay-process.ts";

/** A turn of a real CLI: cold start plus a few model round trips, on a shared 2-core box. */
export const TURN_MS = 150_000;

export async function createSession(relay: TestRelay, body: Record<string, unknown>): Promise<string> {
  const r = await relay.api("POST", "/api/sessions", { title: "real agent", ...body });
  assert.equal(r.status, 201, JSON.stringify(r.json));
  return r.json.id;
}

/** Posts the owner's message; returns its id. */
export async function post(relay: TestRelay, sessionId: string, text: string): Promise<string> {
  const r = await relay.api("POST", `/api/sessions/${sessionId}/messages`, { text });
  assert.equal(r.status, 201, JSON.stringify(r.json));
  return r.json.message_id;
}

/** The agent's reply to the message `messageId`, once its turn ended. */
export function replyTo(relay: TestRelay, sessionId: string, messageId: string, timeoutMs = TURN_MS): Promise<any> {
  return relay.waitFor(async () => {
    const s = await relay.session(sessionId);
    const i = s.messages.findIndex((m: any) => m.id === messageId);
    if (i < 0 || s.state === "running_turn") return undefined;
    return s.messages.slice(i + 1).find((m: any) => m.role === "agent");
  }, timeoutMs);
}

export async function say(relay: TestRelay, sessionId: string, text: string, timeoutMs = TURN_MS): Promise<any> {
  return replyTo(relay, sessionId, await post(relay, sessionId, text), timeoutMs);
}

/** The pending permission card of a session (kind `permission`), once raised. */
export function permissionCard(relay: TestRelay, sessionId: string, timeoutMs = TURN_MS): Promise<any> {
  return relay.waitFor(
    async () =>
      (await relay.api("GET", `/api/cards?session=${sessionId}`)).json.cards.find(
        (c: any) => c.kind === "permission" && c.status === "pending",
      ),
    timeoutMs,
  );
}

/** The provider's entry in GET /api/providers once a probe has checked it. A probe that
 * timed out (a cold CLI start on a machine busy with other work can take longer than the
 * probe waits) is asked once more, as an owner would with Check again. */
export async function checkedProvider(relay: TestRelay, id: string, timeoutMs = TURN_MS): Promise<any> {
  const p = await relay.waitFor(async () => {
    const e = (await relay.api("GET", "/api/providers")).json.providers?.find((x: any) => x.id === id);
    return e?.checkedAt && !e.checking ? e : undefined;
  }, timeoutMs);
  if (p.available || !/did not answer within|did not start/.test(p.reason ?? "")) return p;
  return (await relay.api("POST", `/api/providers/${id}/check`)).json;
}

/** The provider's entry in GET /api/usage. */
export async function usageOf(relay: TestRelay, id: string): Promise<any> {
  return (await relay.api("GET", "/api/usage")).json.providers.find((p: any) => p.id === id);
}

/** The activity entry of the relay_tool call with `action`, from a reply's meta (SHAPES.md). */
export function relayActivity(reply: any, action: string): any {
  return (reply.meta?.activity ?? []).find((a: any) => a.kind === "tool" && a.relay?.action === action);
}
