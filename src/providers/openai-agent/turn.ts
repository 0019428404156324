// One prompt turn: ask the model (streamed), run the tools it calls, feed their results back,
// until it answers without tools. Compacts first when the context passed the window; reports
// tokens (and DeepSeek's cost) at the end.

import type OpenAI from "openai";
import type * as acp from "@agentclientprotocol/sdk";
import { isAbort, isContextOverflow, TurnFailed } from "./api-errors.ts";
import { compact, windowOf } from "./compaction.ts";
import type { AgentConfig } from "./config.ts";
import type { ModelClient } from "./model-client.ts";
import { costUsd, type TokenCounts } from "./pricing.ts";
import type { AgentSession, Message } from "./session.ts";
import type { ModelReply } from "./stream.ts";
import { runToolCall, type TurnIo } from "./tool-runner.ts";
import type { Tool } from "./tools/types.ts";

/** Model round trips in one turn before it stops by itself (a runaway tool loop). */
const MAX_STEPS = 200;

export interface TurnUsage extends TokenCounts {
  costUsd: number | null;
}

export interface TurnOutcome {
  stopReason: acp.StopReason;
  usage: TurnUsage;
}

export function toolsFor(session: AgentSession, builtin: readonly Tool[]): Map<string, Tool> {
  const all = [...builtin, ...(session.mcp?.tools ?? [])];
  return new Map(all.map((t) => [t.name, t]));
}

function functionsFor(session: AgentSession, tools: Map<string, Tool>): OpenAI.Chat.Completions.ChatCompletionTool[] {
  // Plan mode: the model is offered only what reads; a write it still asks for needs permission.
  return [...tools.values()]
    .filter((t) => session.mode !== "plan" || !t.writes)
    .map((t) => ({
      type: "function" as const,
      function: { name: t.name, description: t.description, parameters: t.parameters },
    }));
}

function addUsage(total: TokenCounts, u: OpenAI.CompletionUsage | null): void {
  if (!u) return;
  total.inputTokens += u.prompt_tokens ?? 0;
  total.outputTokens += u.completion_tokens ?? 0;
  const x = u as OpenAI.CompletionUsage & { prompt_cache_hit_tokens?: number };
  total.cachedTokens += x.prompt_tokens_details?.cached_tokens ?? x.prompt_cache_hit_tokens ?? 0;
}

export async function runTurn(
  session: AgentSession,
  prompt: string,
  deps: { cfg: AgentConfig; client: ModelClient; tools: Map<string, Tool>; io: TurnIo },
  signal: AbortSignal,
): Promise<TurnOutcome> {
  const { cfg, client, tools, io } = deps;
  const counts: TokenCounts = { inputTokens: 0, outputTokens: 0, cachedTokens: 0 };
  const outcome = (stopReason: acp.StopReason): TurnOutcome => ({
    stopReason,
    usage: { ...counts, costUsd: costUsd(cfg.flavour, session.model, counts) },
  });
  const thought = (t: string) =>
    io.update({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: t } });

  // Thinking of earlier turns is not sent back (DeepSeek refuses it); this turn's is, during its tool loop.
  for (const m of session.history) delete m.reasoning_content;
  session.history.push({ role: "user", content: prompt });
  const functions = functionsFor(session, tools);
  let overflowRetried = false;

  for (let step = 0; step < MAX_STEPS; step++) {
    const window = windowOf(session, cfg);
    if (window !== null && session.contextTokens > window) {
      await thought(
        `Context is ${session.contextTokens.toLocaleString("en-US")} tokens, past the window of ${window.toLocaleString("en-US")}: summarizing earlier turns.\n`,
      );
      const done = await runModel(() => compact(session, client, signal), signal);
      if (done === "cancelled") return outcome("cancelled");
      if (done && done !== "again")
        await thought(`Compacted: about ${done.after.toLocaleString("en-US")} tokens now.\n`);
    }
    const partial: ModelReply = { content: "", reasoning: "", toolCalls: [], finishReason: null, usage: null };
    const reply = await runModel(
      () =>
        client.stream(
          { model: session.model, messages: session.history, tools: functions, effort: session.effort },
          {
            text: (t) => {
              partial.content += t;
              return io.update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: t } });
            },
            thought: (t) => thought(t),
          },
          signal,
          (note) => void thought(`${note}\n`),
        ),
      signal,
      async (e) => {
        // The server says the conversation no longer fits: compact once and try again.
        if (!isContextOverflow(e) || overflowRetried) return false;
        overflowRetried = true;
        await thought("The endpoint says the context is full: summarizing earlier turns.\n");
        return (await compact(session, client, signal)) !== null;
      },
    );
    if (reply === "cancelled") {
      if (partial.content) session.history.push({ role: "assistant", content: partial.content });
      return outcome("cancelled");
    }
    if (reply === "again") continue;
    addUsage(counts, reply.usage);
    const assistant: Message = { role: "assistant", content: reply.content || null };
    if (reply.reasoning && cfg.alwaysThinks) assistant.reasoning_content = reply.reasoning;
    if (reply.toolCalls.length) {
      reply.toolCalls.forEach((c, i) => {
        c.id ||= `call_${step}_${i}`;
      });
      (assistant as OpenAI.Chat.Completions.ChatCompletionAssistantMessageParam).tool_calls = reply.toolCalls.map(
        (c) => ({
          id: c.id,
          type: "function" as const,
          function: { name: c.name, arguments: c.arguments || "{}" },
        }),
      );
    }
    session.history.push(assistant);
    session.contextTokens = reply.usage
      ? reply.usage.prompt_tokens + reply.usage.completion_tokens
      : session.contextTokens + Math.ceil((reply.content.length + reply.reasoning.length) / 4);

    if (reply.toolCalls.length === 0) return outcome(reply.finishReason === "length" ? "max_tokens" : "end_turn");
    for (const call of reply.toolCalls) {
      // Every call gets a result, even after a Stop, so the history stays valid for the next turn.
      const result = signal.aborted
        ? "Not run: the user stopped the turn."
        : await runToolCall(session, call, tools, io, signal).catch((e) =>
            signal.aborted ? "Stopped by the user." : `${call.name} failed: ${(e as Error).message}`,
          );
      session.history.push({ role: "tool", tool_call_id: call.id, content: result });
      session.contextTokens += Math.ceil(result.length / 4);
    }
    if (signal.aborted) return outcome("cancelled");
  }
  return outcome("max_turn_requests");
}

/** Runs a model request; "cancelled" on Stop, "again" when `recover` fixed the failure. */
async function runModel<T>(
  fn: () => Promise<T>,
  signal: AbortSignal,
  recover?: (e: unknown) => Promise<boolean>,
): Promise<T | "cancelled" | "again"> {
  try {
    return await fn();
  } catch (e) {
    if (signal.aborted || isAbort(e)) return "cancelled";
    if (recover && (await recover(e).catch(() => false))) return "again";
    if (e instanceof TurnFailed) throw e;
    throw new TurnFailed(`The model request failed: ${(e as Error).message}`);
  }
}
