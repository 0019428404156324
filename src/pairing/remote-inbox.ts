import { RelayError } from "../core/errors.ts";
import type { PeerCall } from "./deps.ts";
import { AnswerResult, QuestionsAnswer } from "./peer-protocol.ts";
import type { PairingStore } from "./store.ts";

// The Inbox across a link (seed §11 "Who answers"): questions this relay's conversations asked
// about sessions on a paired relay are kept there (peer/questions.ts answers for them); this
// relay's Inbox lists them (each with `relay`) and answers them there, `via` this relay. A
// paired relay that does not answer within a moment is left out of the list, never waited for.

const INBOX_TIMEOUT_MS = 2_000;

export class RemoteInbox {
  /** Which paired relay holds a question the Inbox listed. */
  private holder = new Map<string, string>();

  constructor(private pairing: { store: Pick<PairingStore, "relays" | "relay">; call: PeerCall }) {}

  async list(): Promise<Record<string, unknown>[]> {
    const pairing = this.pairing;
    const lists = await Promise.all(
      pairing.store.relays().map(async (row) => {
        try {
          const { questions } = await pairing.call(row, "GET", "/peer/v1/questions", undefined, QuestionsAnswer, {
            timeoutMs: INBOX_TIMEOUT_MS,
          });
          for (const q of questions) this.holder.set(q.id, row.name);
          return questions.map((q) => ({ ...q, relay: row.name }));
        } catch {
          return [];
        }
      }),
    );
    return lists.flat();
  }

  holds(id: string): boolean {
    return this.holder.has(id);
  }

  async answer(id: string, a: Record<string, unknown>): Promise<Record<string, unknown>> {
    const name = this.holder.get(id);
    const row = name ? this.pairing.store.relay(name) : undefined;
    if (!row)
      throw new RelayError(
        "REMOTE_RELAY_NOT_FOUND",
        `No question ${id.slice(0, 80)} on this relay or its paired relays. Nothing was answered.`,
      );
    const answered = await this.pairing.call(
      row,
      "POST",
      `/peer/v1/questions/${encodeURIComponent(id)}`,
      a,
      AnswerResult,
      { timeoutMs: 10_000, tail: "Nothing was answered." },
    );
    if (answered.ok === false)
      throw new RelayError(
        answered.code ?? "REMOTE_RELAY_NOT_FOUND",
        answered.error ?? "The paired relay refused the answer. Nothing was answered.",
      );
    this.holder.delete(id);
    return { ...answered, relay: row.name };
  }
}
