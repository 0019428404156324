// Context compaction: when the conversation's tokens pass the session's window, the older turns
// are summarized by the model and replaced by that summary; the recent part stays word for word.

import type { AgentConfig } from "./config.ts";
import { DEEPSEEK_WHOLE_WINDOW } from "./config.ts";
import type { ModelClient } from "./model-client.ts";
import { estimateTokens, type AgentSession, type Message } from "./session.ts";

export const SUMMARY_MARK = "[Summary of the earlier conversation, made when its context grew past";

const INSTRUCTION =
  "Summarize the conversation above so that you can continue the work from the summary alone: the user's goals and " +
  "instructions, decisions taken, files read or changed (with paths), commands run and their outcome, background tasks, " +
  "what is done and what is still open. Be complete but concise; no preamble.";

/** The token count at which this session compacts, or null for never (before the server refuses). */
export function windowOf(session: AgentSession, cfg: AgentConfig): number | null {
  const w = session.window;
  if (w === "auto") return cfg.autoWindow;
  if (w === 0) return cfg.flavour === "deepseek" ? DEEPSEEK_WHOLE_WINDOW : cfg.autoWindow;
  return w > 0 ? w : null;
}

/** Where the kept tail starts: the current turn's prompt, or (when that turn alone is the
 * bulk) its last model step, so that tool calls and their results are never split. */
function cutIndex(history: Message[]): number {
  let lastUser = -1;
  for (let i = history.length - 1; i > 0; i--)
    if (history[i].role === "user") {
      lastUser = i;
      break;
    }
  if (lastUser > 1) return lastUser;
  for (let i = history.length - 1; i > 0; i--) if (history[i].role === "assistant") return i;
  return -1;
}

/** Summarizes the older part of the history in place; false when there is nothing to fold. */
export async function compact(
  session: AgentSession,
  client: ModelClient,
  signal: AbortSignal,
): Promise<{ before: number; after: number } | null> {
  const cut = cutIndex(session.history);
  if (cut <= 1) return null;
  const [system, ...rest] = session.history;
  const head = rest.slice(0, cut - 1).map(({ reasoning_content: _drop, ...m }) => m as Message);
  const tail = session.history.slice(cut);
  const { text } = await client.complete(
    { model: session.model, messages: [system, ...head, { role: "user", content: INSTRUCTION }] },
    signal,
  );
  const before = session.contextTokens;
  const summary: Message = {
    role: "user",
    content: `${SUMMARY_MARK} ${before.toLocaleString("en-US")} tokens]\n${text.trim()}`,
  };
  // Some APIs refuse two user messages in a row: a tail starting with the prompt takes the summary in.
  const first = tail[0];
  if (first?.role === "user" && typeof first.content === "string") {
    session.history = [system, { role: "user", content: `${summary.content}\n\n${first.content}` }, ...tail.slice(1)];
  } else session.history = [system, summary, ...tail];
  session.contextTokens = estimateTokens(session.history);
  return { before, after: session.contextTokens };
}
