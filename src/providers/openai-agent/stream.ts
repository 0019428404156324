// Reads one streamed chat completion: text deltas go out as they come, thinking
// (`reasoning_content`, or `reasoning` on some local servers) too, and tool-call deltas are
// put together by index into whole calls.

import type OpenAI from "openai";

export interface ToolCallOut {
  id: string;
  name: string;
  arguments: string;
}

export interface ModelReply {
  content: string;
  reasoning: string;
  toolCalls: ToolCallOut[];
  finishReason: string | null;
  usage: OpenAI.CompletionUsage | null;
}

export interface StreamSink {
  text(t: string): Promise<void> | void;
  thought(t: string): Promise<void> | void;
}

export async function readStream(
  stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>,
  sink: StreamSink,
): Promise<ModelReply> {
  const reply: ModelReply = { content: "", reasoning: "", toolCalls: [], finishReason: null, usage: null };
  const calls = new Map<number, ToolCallOut>();
  for await (const chunk of stream) {
    if (chunk.usage) reply.usage = chunk.usage;
    for (const choice of chunk.choices ?? []) {
      const delta = choice.delta as typeof choice.delta & {
        reasoning_content?: string | null;
        reasoning?: string | null;
      };
      const thinking = delta?.reasoning_content ?? delta?.reasoning;
      if (thinking) {
        reply.reasoning += thinking;
        await sink.thought(thinking);
      }
      if (delta?.content) {
        reply.content += delta.content;
        await sink.text(delta.content);
      }
      for (const tc of delta?.tool_calls ?? []) {
        const call = calls.get(tc.index) ?? { id: "", name: "", arguments: "" };
        if (tc.id) call.id = tc.id;
        if (tc.function?.name) call.name += tc.function.name;
        if (tc.function?.arguments) call.arguments += tc.function.arguments;
        calls.set(tc.index, call);
      }
      if (choice.finish_reason) reply.finishReason = choice.finish_reason;
    }
  }
  reply.toolCalls = [...calls.entries()].sort((a, b) => a[0] - b[0]).map(([, c]) => c);
  return reply;
}
