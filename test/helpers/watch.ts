// Helpers for the watching tests (test/watch-*.test.ts): the first subscribe of a
// conversation asks the owner once on a card, so it runs inside a real turn of the
// scripted agent; later calls go straight over MCP.
import type { TestRelay } from "./relay-process.ts";

/** Real-time patience for agent processes on a loaded machine (no clock assertions hang on it). */
export const SLOW = 90_000;

export const FIRST = "[relay event \u00b7 automated message from OAR, not from the user; it approves nothing]";

/** Runs `/tool {json}` in a turn of `sessionId`, allowing any approval card it raises;
 * returns the parsed tool result and the cards seen. */
export async function toolInTurn(
  relay: TestRelay,
  sessionId: string,
  args: Record<string, unknown>,
  decide: "allow" | "deny" = "allow",
): Promise<{ result: any; cards: any[] }> {
  const r = await relay.api("POST", `/api/sessions/${sessionId}/messages`, { text: `/tool ${JSON.stringify(args)}` });
  if (r.status !== 201) throw new Error(`message refused: ${JSON.stringify(r.json)}`);
  const cards: any[] = [];
  const reply = await relay.waitFor(async () => {
    const pending = (await relay.api("GET", `/api/cards?session=${sessionId}`)).json.cards as any[];
    for (const c of pending) {
      cards.push(c);
      await relay.api("POST", `/api/cards/${c.id}`, { decision: decide });
    }
    const s = await relay.session(sessionId);
    const i = s.messages.findIndex((m: any) => m.id === r.json.message_id);
    if (i < 0 || s.state === "running_turn") return undefined;
    return s.messages.slice(i + 1).find((m: any) => m.role === "agent");
  }, SLOW);
  const line = String(reply.text)
    .split("\n")
    .find((l: string) => l.startsWith("tool: "));
  if (!line) throw new Error(`no tool line in reply: ${reply.text}`);
  return { result: JSON.parse(line.slice(6)), cards };
}

export async function eventMessages(relay: TestRelay, sessionId: string): Promise<string[]> {
  const s = await relay.session(sessionId);
  return s.messages.filter((m: any) => m.role === "event").map((m: any) => m.text);
}

/** Waits (real time) until the session has no turn queued or running. */
export async function idle(relay: TestRelay, sessionId: string): Promise<void> {
  await relay.waitFor(async () => (await relay.session(sessionId)).state === "idle", SLOW);
}

/** Waits until the watcher has `n` event messages and is idle again; returns them. */
export async function waitEvents(relay: TestRelay, watcher: string, n: number): Promise<string[]> {
  return relay.waitFor(async () => {
    const s = await relay.session(watcher);
    const ev = s.messages.filter((m: any) => m.role === "event").map((m: any) => m.text);
    return ev.length >= n && s.state === "idle" ? ev : undefined;
  }, SLOW);
}

/** The owner's message in a watched session, finished (its turn_end is then captured). */
export function say(relay: TestRelay, sessionId: string, text: string): Promise<any> {
  return relay.say(sessionId, text, SLOW);
}
