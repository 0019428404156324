// The model requests of a turn: one OpenAI SDK client per process (its own retries off: ours
// below are bounded, honour retry-after, and stop the moment the turn is cancelled).

import OpenAI from "openai";
import { describeFailure, failureKind, isAbort, retryDelay, TurnFailed } from "./api-errors.ts";
import type { AgentConfig } from "./config.ts";
import type { Message } from "./session.ts";
import { readStream, type ModelReply, type StreamSink } from "./stream.ts";

export interface ModelRequest {
  model: string;
  messages: Message[];
  tools?: OpenAI.Chat.Completions.ChatCompletionTool[];
  effort?: string;
}

export class ModelClient {
  readonly api: OpenAI;
  /** Set when the endpoint refused `reasoning_effort` once: it is not sent again. */
  private effortRefused = false;

  constructor(readonly cfg: AgentConfig) {
    this.api = new OpenAI({ baseURL: cfg.baseUrl, apiKey: cfg.apiKey, maxRetries: 0, timeout: 10 * 60 * 1000 });
  }

  async listModels(signal?: AbortSignal): Promise<string[]> {
    const page = await this.api.models.list({ signal, timeout: 10_000 });
    return page.data.map((m) => m.id).filter((id) => typeof id === "string" && id !== "");
  }

  private params(req: ModelRequest, stream: boolean) {
    const body: Record<string, unknown> = { model: req.model, messages: req.messages };
    if (req.tools?.length) body.tools = req.tools;
    if (stream) {
      body.stream = true;
      body.stream_options = { include_usage: true };
    }
    // DeepSeek sessions always think (issue 10); its chat API switches thinking on this way.
    if (this.cfg.alwaysThinks) body.thinking = { type: "enabled" };
    const effort = req.effort === "max" ? "high" : req.effort;
    if (this.cfg.takesEffort && effort && !this.effortRefused) body.reasoning_effort = effort;
    return body;
  }

  /** One streamed answer, retried on 429/5xx; throws TurnFailed with words, or the abort. */
  async stream(
    req: ModelRequest,
    sink: StreamSink,
    signal: AbortSignal,
    onRetry?: (note: string) => void,
  ): Promise<ModelReply> {
    return this.withRetries(req, signal, onRetry, async () => {
      const s = (await this.api.chat.completions.create(this.params(req, true) as never, {
        signal,
      })) as unknown as AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>;
      return readStream(s, sink);
    });
  }

  /** One answer without streaming (summaries for compaction). */
  async complete(
    req: ModelRequest,
    signal: AbortSignal,
  ): Promise<{ text: string; usage: OpenAI.CompletionUsage | null }> {
    return this.withRetries(req, signal, undefined, async () => {
      const res = (await this.api.chat.completions.create(this.params(req, false) as never, {
        signal,
      })) as OpenAI.Chat.Completions.ChatCompletion;
      return { text: res.choices[0]?.message?.content ?? "", usage: res.usage ?? null };
    });
  }

  private async withRetries<T>(
    req: ModelRequest,
    signal: AbortSignal,
    onRetry: ((n: string) => void) | undefined,
    once: () => Promise<T>,
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await once();
      } catch (e) {
        if (signal.aborted || isAbort(e)) throw e;
        if (
          !this.effortRefused &&
          req.effort &&
          e instanceof OpenAI.APIError &&
          e.status === 400 &&
          /reasoning_effort/i.test(e.message)
        ) {
          this.effortRefused = true;
          continue;
        }
        if (e instanceof OpenAI.APIError && e.status === 400 && /context|too long|maximum.*tokens/i.test(e.message))
          throw e;
        const delay = retryDelay(e, attempt);
        if (delay === null) throw new TurnFailed(describeFailure(e, this.cfg, req.model, attempt), failureKind(e));
        onRetry?.(
          `${this.cfg.name} answered ${(e as { status?: number }).status}; retrying in ${Math.round(delay / 100) / 10} s (attempt ${attempt + 2}).`,
        );
        await sleep(delay, signal);
      }
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(Object.assign(new Error("aborted"), { name: "AbortError" }));
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
