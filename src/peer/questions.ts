import { RelayError } from "../core/errors.ts";
import { questionView } from "../questions/ask-user.ts";
import type { ClientRow } from "../pairing/store.ts";
import type { ActionServices } from "../actions/services.ts";

// The other half of the Inbox across a link (pairing/remote-inbox.ts): questions a paired
// relay's conversations asked about sessions here are kept here; that relay lists them and
// answers them, `via` itself.

export type PeerQuestionsDeps = Pick<ActionServices, "identity" | "sessions" | "questions" | "answering" | "pairing">;

/** The pending asks of that client's conversations. */
export function clientQuestions({ sessions, pairing }: PeerQuestionsDeps, client: ClientRow) {
  return pairing.clientAsks(client).map((q) => ({
    ...questionView(q),
    askedBy: q.remote_asker,
    sessionTitle: sessions.get(q.session_id)?.title ?? null,
  }));
}

/** Answers one of that client's asks, via the client's relay. */
export function answerClientQuestion(
  { identity, questions, answering, pairing }: PeerQuestionsDeps,
  client: ClientRow,
  id: string,
  a: { choice?: string; answer?: string; dismiss?: boolean },
) {
  const q = questions.get(id);
  if (!q || !pairing.askedThrough(client, q))
    throw new RelayError(
      "REMOTE_RELAY_NOT_FOUND",
      `No question ${id.slice(0, 80)} asked from relay "${client.name}" on relay "${identity.name}". Nothing was answered.`,
    );
  return questionView(answering.answer(id, { ...a, via: client.name }));
}
