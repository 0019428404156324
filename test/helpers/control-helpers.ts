// Helpers for the owner-control tests (test/control-*.test.ts): cards raised from inside
// real scripted turns, decided through the owner API, and the SSE stream read with fetch.
import type { TestRelay } from "./relay-process.ts";

export { toolResults } from "./core-helpers.ts";

/** A `/tool` line for a scripted prompt. */
export const tool = (args: Record<string, unknown>): string => `/tool ${JSON.stringify(args)}`;

/** The pending cards of a conversation (GET /api/cards?session=). */
export async function pendingCards(relay: TestRelay, sessionId?: string): Promise<any[]> {
  const r = await relay.api("GET", `/api/cards${sessionId ? `?session=${sessionId}` : ""}`);
  if (r.status !== 200) throw new Error(`cards: ${r.status} ${JSON.stringify(r.json)}`);
  return r.json.cards;
}

/** Waits until the conversation shows a pending card and returns it. */
export function waitCard(relay: TestRelay, sessionId: string, timeoutMs = 60_000): Promise<any> {
  return relay.waitFor(async () => (await pendingCards(relay, sessionId))[0], timeoutMs);
}

export function decide(relay: TestRelay, cardId: string, decision: "allow" | "deny") {
  return relay.api("POST", `/api/cards/${cardId}`, { decision });
}

/** Prompts in `target` sent by the agent of `from` (the "↗ from" badge). */
export async function promptsFrom(relay: TestRelay, target: string, from: string): Promise<any[]> {
  const s = await relay.session(target);
  return s.messages.filter((m: any) => m.role === "user" && m.from?.session === from);
}

/** Waits until `target` has run every turn it was given (its state is idle again). */
export function waitIdle(relay: TestRelay, sessionId: string, timeoutMs = 60_000): Promise<any> {
  return relay.waitFor(async () => {
    const s = await relay.session(sessionId);
    return s.state === "idle" ? s : undefined;
  }, timeoutMs);
}

/** Reads GET /api/stream (Server-Sent Events) with fetch; collects the `change` events. */
export async function openStream(relay: TestRelay) {
  const ac = new AbortController();
  const res = await fetch(`${relay.url}/api/stream`, {
    headers: { authorization: `Bearer ${relay.token}` },
    signal: ac.signal,
  });
  if (res.status !== 200 || !res.body) throw new Error(`stream: ${res.status}`);
  const events: any[] = [];
  let hello = false;
  const reading = (async () => {
    const decoder = new TextDecoder();
    let buf = "";
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buf += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buf.indexOf("\n\n")) >= 0) {
          const block = buf.slice(0, end);
          buf = buf.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = block
            .split("\n")
            .filter((l) => l.startsWith("data: "))
            .map((l) => l.slice(6))
            .join("\n");
          if (event === "hello") hello = true;
          if (event === "change") events.push(JSON.parse(data));
        }
      }
    } catch {
      // aborted
    }
  })();
  await relay.waitFor(() => hello);
  return {
    events,
    /** Waits for a change event matching `pred`. */
    next: (pred: (e: any) => boolean) => relay.waitFor(() => events.find(pred)),
    close: async () => {
      ac.abort();
      await reading;
    },
  };
}
