// Helpers for the schedule and question tests (test/sched-*.test.ts, test/ask-*.test.ts).
import type { TestRelay } from "./relay-process.ts";

export const MIN = 60_000;
export const iso = (ms: number) => new Date(ms).toISOString();

/** A `/tool` line for a scripted prompt. */
export const toolLine = (args: Record<string, unknown>): string => `/tool ${JSON.stringify(args)}`;

/** The JSON of the `tool: …` lines of a scripted reply. */
export function toolResults(reply: { text: string }): any[] {
  return reply.text
    .split("\n")
    .filter((l) => l.startsWith("tool: "))
    .map((l) => JSON.parse(l.slice("tool: ".length)));
}

export async function messages(relay: TestRelay, sessionId: string, role?: string): Promise<any[]> {
  const all = (await relay.session(sessionId)).messages;
  return role ? all.filter((m: any) => m.role === role) : all;
}

/** question_answered event messages of a conversation, each with its parsed fields. */
export async function answeredEvents(relay: TestRelay, sessionId: string): Promise<{ text: string; fields: any }[]> {
  return (await messages(relay, sessionId, "event"))
    .flatMap((m: any) => m.text.split("\n"))
    .filter((l: string) => l.startsWith("[relay event] question_answered "))
    .map((text: string) => ({ text, fields: JSON.parse(text.slice(text.indexOf("→ ") + 2)) }));
}

export function waitIdle(relay: TestRelay, sessionId: string): Promise<any> {
  return relay.waitFor(async () => {
    const s = await relay.session(sessionId);
    return s.state === "idle" ? s : undefined;
  }, 60_000);
}

/** Starts a turn with the owner's message and returns once it runs (not waiting for its end). */
export async function startTurn(relay: TestRelay, sessionId: string, text: string): Promise<string> {
  const r = await relay.api("POST", `/api/sessions/${sessionId}/messages`, { text });
  if (r.status !== 201) throw new Error(`message refused: ${JSON.stringify(r.json)}`);
  await relay.waitFor(async () => (await relay.session(sessionId)).state === "running_turn");
  return r.json.message_id;
}

export async function pendingCards(relay: TestRelay, sessionId: string): Promise<any[]> {
  return (await relay.api("GET", `/api/cards?session=${sessionId}`)).json.cards;
}

/** Runs `/tool JSON` in a real turn of `sessionId` (the owner's message), deciding any
 * approval card it raises with `decision`; returns the tool result. */
export async function toolInTurn(
  relay: TestRelay,
  sessionId: string,
  args: Record<string, unknown>,
  decision: "allow" | "deny" = "allow",
): Promise<any> {
  const reply = relay.say(sessionId, toolLine(args), 60_000);
  let settled = false;
  reply.then(
    () => (settled = true),
    () => (settled = true),
  );
  while (!settled) {
    for (const c of await pendingCards(relay, sessionId)) await relay.api("POST", `/api/cards/${c.id}`, { decision });
    await new Promise((r) => setTimeout(r, 40));
  }
  const results = toolResults(await reply);
  if (results.length !== 1) throw new Error(`expected one tool line, got: ${(await reply).text}`);
  return results[0];
}
