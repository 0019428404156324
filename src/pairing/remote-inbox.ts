import { RelayError } from "../core/errors.ts";
import type { Relay } from "../relay.ts";
import { questionView, type QuestionRow } from "../questions/ask-user.ts";
import type { ClientRow } from "./store.ts";

// The Inbox across a link (seed §11 "Who answers"): questions this relay's conversations asked
// about sessions on a paired relay are kept there; this relay's Inbox lists them (each with
// `relay`) and answers them there, `via` this relay. A paired relay that does not answer
// within a moment is left out of the list, never waited for.

const INBOX_TIMEOUT_MS = 2_000;

/** On the relay holding them: the pending asks of that client's conversations. */
export function clientQuestions(relay: Relay, client: ClientRow) {
  const rows = relay.db.prepare(`SELECT q.*, r.session_id AS remote_asker FROM questions q JOIN remote_callers r ON r.id = q.asked_by
    WHERE r.pairing = ? AND q.kind = 'ask' AND q.status = 'pending' ORDER BY q.created_at`).all(client.id) as (QuestionRow & { remote_asker: string })[];
  return rows.map((q) => ({ ...questionView(q), askedBy: q.remote_asker, sessionTitle: relay.sessions.get(q.session_id)?.title ?? null }));
}

/** On the relay holding it: answers one of that client's asks, via the client's relay. */
export function answerClientQuestion(relay: Relay, client: ClientRow, id: string, a: { choice?: string; answer?: string; dismiss?: boolean }) {
  const q = relay.db.prepare(`SELECT q.id FROM questions q JOIN remote_callers r ON r.id = q.asked_by WHERE q.id = ? AND r.pairing = ?`).get(id, client.id);
  if (!q) throw new RelayError("REMOTE_RELAY_NOT_FOUND", `No question ${id.slice(0, 80)} asked from relay "${client.name}" on relay "${relay.name}". Nothing was answered.`);
  return questionView(relay.questions.answer(id, { ...a, via: client.name }));
}

export class RemoteInbox {
  /** Which paired relay holds a question the Inbox listed. */
  private holder = new Map<string, string>();

  constructor(private relay: Relay) {}

  async list(): Promise<Record<string, unknown>[]> {
    const pairing = this.relay.pairing;
    const lists = await Promise.all(pairing.store.relays().map(async (row) => {
      try {
        const res = await pairing.call(row, "GET", "/peer/v1/questions", undefined, { timeoutMs: INBOX_TIMEOUT_MS });
        const qs = Array.isArray(res.json.questions) ? (res.json.questions as Record<string, unknown>[]) : [];
        for (const q of qs) this.holder.set(String(q.id), row.name);
        return qs.map((q) => ({ ...q, relay: row.name }));
      } catch {
        return [];
      }
    }));
    return lists.flat();
  }

  holds(id: string): boolean {
    return this.holder.has(id);
  }

  async answer(id: string, a: Record<string, unknown>): Promise<Record<string, unknown>> {
    const name = this.holder.get(id);
    const row = name ? this.relay.pairing.store.relay(name) : undefined;
    if (!row) throw new RelayError("REMOTE_RELAY_NOT_FOUND", `No question ${id.slice(0, 80)} on this relay or its paired relays. Nothing was answered.`);
    const res = await this.relay.pairing.call(row, "POST", `/peer/v1/questions/${encodeURIComponent(id)}`, a, { timeoutMs: 10_000, tail: "Nothing was answered." });
    if (res.json?.ok === false) throw new RelayError(res.json.code ?? "REMOTE_RELAY_NOT_FOUND", String(res.json.error ?? "The paired relay refused the answer. Nothing was answered."));
    this.holder.delete(id);
    return { ...res.json, relay: row.name };
  }
}
