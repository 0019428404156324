// Helpers for the session-settings tests (groups, update_session, models, billing): drive
// relay_tool from inside a real scripted turn and decide the approval cards it raises.
import type { TestRelay } from "./relay-process.ts";

/** The results of every `/tool` line in a scripted reply, in order. */
export function toolResults(reply: { text: string }): any[] {
  return reply.text
    .split("\n")
    .filter((l) => l.startsWith("tool: "))
    .map((l) => JSON.parse(l.slice("tool: ".length)));
}

/** One `/tool` line per call. */
export const toolLines = (...calls: Record<string, unknown>[]): string =>
  calls.map((c) => `/tool ${JSON.stringify(c)}`).join("\n");

export interface SayResult {
  reply: any;
  results: any[];
  cards: any[];
}

/**
 * The owner's message to `session` (a script of /tool lines); every approval card the turn
 * raises is decided by `decide` (called with the card, before the owner acts on it), and the
 * cards are returned as they were shown.
 */
export async function sayDeciding(
  relay: TestRelay,
  session: string,
  text: string,
  decide: "allow" | "deny" | ((card: any) => Promise<"allow" | "deny"> | "allow" | "deny"),
): Promise<SayResult> {
  const cards: any[] = [];
  const seen = new Set<string>();
  let done = false;
  const replyP = relay.say(session, text, 30_000).finally(() => (done = true));
  const decider = (async () => {
    while (!done) {
      const pending = (await relay.api("GET", `/api/cards?session=${session}`)).json.cards.filter(
        (c: any) => c.status === "pending" && !seen.has(c.id),
      );
      for (const card of pending) {
        seen.add(card.id);
        cards.push(card);
        const d = typeof decide === "function" ? await decide(card) : decide;
        await relay.api("POST", `/api/cards/${card.id}`, { decision: d });
      }
      await new Promise((r) => setTimeout(r, 30));
    }
  })();
  const reply = await replyP;
  await decider;
  return { reply, results: toolResults(reply), cards };
}

/** The session as list_sessions shows it (owner API view, which carries the same fields). */
export async function entry(relay: TestRelay, id: string): Promise<any> {
  return relay.session(id);
}
