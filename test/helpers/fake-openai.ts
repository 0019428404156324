// A local model server speaking OpenAI's wire API, for agents that talk to an
// OpenAI-compatible endpoint (Copilot offline, Grok, DeepSeek, OpenAI Image):
//   POST /v1/chat/completions   streamed (SSE chunks: content, reasoning_content and
//                               tool_calls deltas, usage in the final chunk) or not
//   GET  /v1/models             the configured model ids
//   POST /v1/images/generations and /v1/images/edits   b64_json images
//   GET  /v1/api-key            xAI's key info (Grok checks its key with it)
// Paths are matched by their ending, so base URLs with or without `/v1` both work.
// Each test scripts the answers (a queue, then a function of the request) and reads back
// what the agent sent (`calls`: model ids, tools, messages). Loopback only.
import type { Server, ServerResponse } from "node:http";
import { listenLoopback, pieces, sendJson, sleep, sse, until, type RawRequest } from "./fake-http.ts";

export interface ChatCall {
  /** 1-based order among chat completion requests. */
  n: number;
  model: string;
  stream: boolean;
  messages: any[];
  /** Function names of the tools offered. */
  tools: string[];
  body: any;
  headers: Record<string, string>;
  /** False when the request carried a wrong or no key (it got a 401). */
  authorized: boolean;
}

export interface ToolCallAnswer {
  id?: string;
  name: string;
  /** An object (sent as JSON) or the raw arguments string. */
  arguments: unknown;
}

export interface ChatAnswer {
  text?: string;
  /** Streamed as `reasoning_content` deltas (DeepSeek's reasoner and compatible servers). */
  reasoning?: string;
  toolCalls?: ToolCallAnswer[];
  usage?: { prompt_tokens?: number; completion_tokens?: number; cached_tokens?: number };
  finishReason?: string;
  /** Real time to wait before answering (a slow model). */
  delayMs?: number;
  /** Real time between streamed chunks. */
  chunkDelayMs?: number;
}

/** An HTTP error answer in OpenAI's error body shape. */
export interface ErrorAnswer {
  error: { status: number; message?: string; type?: string; code?: string | null };
  retryAfterSeconds?: number;
}

export type Answer = ChatAnswer | ErrorAnswer;
export type ChatScript = (call: ChatCall, server: FakeOpenAI) => Answer | Promise<Answer>;

export interface ImageAnswer {
  /** Base64 PNG bytes; default a 1×1 PNG. */
  b64?: string;
  revisedPrompt?: string;
  error?: ErrorAnswer["error"];
}

export interface FakeOpenAIOptions {
  /** The key the server accepts (`Authorization: Bearer KEY`); null accepts any or none. Default "test-key". */
  apiKey?: string | null;
  models?: string[];
  script?: ChatScript;
  image?: (req: RawRequest) => ImageAnswer | Promise<ImageAnswer>;
}

/** A 1×1 transparent PNG. */
export const TINY_PNG_B64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

export const errors = {
  unauthorized: (): ErrorAnswer => ({
    error: {
      status: 401,
      message: "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.",
      type: "invalid_request_error",
      code: "invalid_api_key",
    },
  }),
  rateLimited: (retryAfterSeconds = 1): ErrorAnswer => ({
    error: {
      status: 429,
      message: "Rate limit reached for requests. Please try again later.",
      type: "requests",
      code: "rate_limit_exceeded",
    },
    retryAfterSeconds,
  }),
  serverError: (): ErrorAnswer => ({
    error: {
      status: 500,
      message: "The server had an error while processing your request. Sorry about that!",
      type: "server_error",
      code: null,
    },
  }),
};

export class FakeOpenAI {
  readonly calls: ChatCall[] = [];
  /** Every request, also models/images and refused ones. */
  readonly requests: RawRequest[] = [];
  readonly imageRequests: RawRequest[] = [];
  apiKey: string | null;
  models: string[];
  private answers: Answer[] = [];
  private script: ChatScript;
  private image: NonNullable<FakeOpenAIOptions["image"]>;
  private seq = 0;

  private constructor(
    private server: Server,
    readonly port: number,
    opts: FakeOpenAIOptions,
  ) {
    this.apiKey = opts.apiKey === undefined ? "test-key" : opts.apiKey;
    this.models = opts.models ?? ["gpt-test", "gpt-test-2"];
    this.script = opts.script ?? (() => ({ text: "ok" }));
    this.image = opts.image ?? (() => ({}));
  }

  static async start(opts: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
    let self!: FakeOpenAI;
    const { server, port } = await listenLoopback((req, res) => self.route(req, res));
    self = new FakeOpenAI(server, port, opts);
    return self;
  }

  /** Base URL including `/v1` (what OpenAI SDK clients take). */
  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }
  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Answers used first, in order, before the script is asked. */
  queue(...answers: Answer[]): this {
    this.answers.push(...answers);
    return this;
  }
  setScript(script: ChatScript): this {
    this.script = script;
    return this;
  }
  setImage(image: NonNullable<FakeOpenAIOptions["image"]>): this {
    this.image = image;
    return this;
  }
  /** Forget recorded calls and queued answers (between tests sharing one server). */
  reset(): void {
    this.calls.length = 0;
    this.requests.length = 0;
    this.imageRequests.length = 0;
    this.answers.length = 0;
  }

  waitForCall(pred: (c: ChatCall) => boolean = () => true, timeoutMs = 60_000): Promise<ChatCall> {
    return until(() => this.calls.find(pred), timeoutMs, "a chat completion request");
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }

  private authorized(req: RawRequest): boolean {
    if (this.apiKey === null) return true;
    return (req.headers.authorization ?? "") === `Bearer ${this.apiKey}` || req.headers["api-key"] === this.apiKey;
  }

  private async route(req: RawRequest, res: ServerResponse): Promise<void> {
    this.requests.push(req);
    const ok = this.authorized(req);
    if (req.method === "POST" && req.path.endsWith("/chat/completions")) {
      const body = req.body ?? {};
      const call: ChatCall = {
        n: ++this.seq,
        model: String(body.model ?? ""),
        stream: !!body.stream,
        messages: Array.isArray(body.messages) ? body.messages : [],
        tools: Array.isArray(body.tools)
          ? body.tools.map((t: any) => t?.function?.name ?? t?.name).filter(Boolean)
          : [],
        body,
        headers: req.headers,
        authorized: ok,
      };
      this.calls.push(call);
      if (!ok) return writeError(res, errors.unauthorized());
      const answer = this.answers.length ? this.answers.shift()! : await this.script(call, this);
      if ("error" in answer) return writeError(res, answer);
      if (answer.delayMs) await sleep(answer.delayMs);
      return call.stream ? writeStream(res, call, answer) : writeWhole(res, call, answer);
    }
    if (!ok) return writeError(res, errors.unauthorized());
    if (req.method === "GET" && req.path.endsWith("/models")) {
      return sendJson(res, 200, {
        object: "list",
        data: this.models.map((id) => ({ id, object: "model", created: 1_700_000_000, owned_by: "fake" })),
      });
    }
    if (req.method === "GET" && req.path.endsWith("/api-key")) {
      // xAI's key info (Grok asks it at start to decide whether its key is good).
      const key = this.apiKey ?? "any";
      return sendJson(res, 200, {
        redacted_api_key: `${key.slice(0, 3)}…${key.slice(-2)}`,
        user_id: "user-fake",
        name: "fake key",
        create_time: "2026-01-01T00:00:00Z",
        modify_time: "2026-01-01T00:00:00Z",
        modified_by: "user-fake",
        team_id: "team-fake",
        acls: ["api-key:model:*", "api-key:endpoint:*"],
        api_key_id: "key-fake",
        team_blocked: false,
        api_key_blocked: false,
        api_key_disabled: false,
      });
    }
    if (req.method === "POST" && (req.path.endsWith("/images/generations") || req.path.endsWith("/images/edits"))) {
      this.imageRequests.push(req);
      const a = await this.image(req);
      if (a.error) return writeError(res, { error: a.error });
      const n = Math.max(1, Number(req.body?.n ?? 1) || 1);
      const item = { b64_json: a.b64 ?? TINY_PNG_B64, ...(a.revisedPrompt ? { revised_prompt: a.revisedPrompt } : {}) };
      return sendJson(res, 200, {
        created: Math.floor(Date.now() / 1000),
        data: Array.from({ length: n }, () => item),
        usage: {
          total_tokens: 100,
          input_tokens: 50,
          output_tokens: 50,
          input_tokens_details: { text_tokens: 50, image_tokens: 0 },
        },
      });
    }
    sendJson(res, 404, {
      error: {
        message: `Unknown request URL: ${req.method} ${req.path}`,
        type: "invalid_request_error",
        code: "unknown_url",
      },
    });
  }
}

function writeError(res: ServerResponse, a: ErrorAnswer): void {
  const { status, message = "error", type = "invalid_request_error", code = null } = a.error;
  sendJson(
    res,
    status,
    { error: { message, type, param: null, code } },
    a.retryAfterSeconds !== undefined ? { "retry-after": String(a.retryAfterSeconds) } : {},
  );
}

let toolSeq = 0;
const toolCallsOf = (a: ChatAnswer) =>
  (a.toolCalls ?? []).map((t) => ({
    id: t.id ?? `call_${++toolSeq}`,
    type: "function" as const,
    function: {
      name: t.name,
      arguments: typeof t.arguments === "string" ? t.arguments : JSON.stringify(t.arguments ?? {}),
    },
  }));

function usageOf(call: ChatCall, a: ChatAnswer) {
  const prompt = a.usage?.prompt_tokens ?? Math.ceil(JSON.stringify(call.messages).length / 4);
  const completion =
    a.usage?.completion_tokens ?? Math.ceil(((a.text ?? "").length + (a.reasoning ?? "").length) / 4) + 1;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    ...(a.usage?.cached_tokens !== undefined
      ? { prompt_tokens_details: { cached_tokens: a.usage.cached_tokens } }
      : {}),
  };
}

const finishOf = (a: ChatAnswer) => a.finishReason ?? (a.toolCalls?.length ? "tool_calls" : "stop");

function writeWhole(res: ServerResponse, call: ChatCall, a: ChatAnswer): void {
  const tools = toolCallsOf(a);
  sendJson(res, 200, {
    id: `chatcmpl-${call.n}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: call.model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: a.text ?? (tools.length ? null : ""),
          ...(a.reasoning ? { reasoning_content: a.reasoning } : {}),
          ...(tools.length ? { tool_calls: tools } : {}),
        },
        finish_reason: finishOf(a),
      },
    ],
    usage: usageOf(call, a),
  });
}

async function writeStream(res: ServerResponse, call: ChatCall, a: ChatAnswer): Promise<void> {
  const out = sse(res);
  const base = {
    id: `chatcmpl-${call.n}`,
    object: "chat.completion.chunk",
    created: Math.floor(Date.now() / 1000),
    model: call.model,
  };
  const chunk = async (delta: object, finish: string | null = null, extra: object = {}) => {
    out.send({ ...base, choices: [{ index: 0, delta, finish_reason: finish }], ...extra });
    if (a.chunkDelayMs) await sleep(a.chunkDelayMs);
  };
  await chunk({ role: "assistant", content: "" });
  for (const p of pieces(a.reasoning ?? "")) await chunk({ reasoning_content: p });
  for (const p of pieces(a.text ?? "")) await chunk({ content: p });
  const tools = toolCallsOf(a);
  for (const [index, t] of tools.entries()) {
    await chunk({
      tool_calls: [{ index, id: t.id, type: "function", function: { name: t.function.name, arguments: "" } }],
    });
    for (const p of pieces(t.function.arguments, 24))
      await chunk({ tool_calls: [{ index, function: { arguments: p } }] });
  }
  const usage = usageOf(call, a);
  if (call.body?.stream_options?.include_usage) {
    await chunk({}, finishOf(a));
    out.send({ ...base, choices: [], usage });
  } else {
    // Servers differ here; several compatible ones put usage on the finishing chunk.
    await chunk({}, finishOf(a), { usage });
  }
  out.raw("data: [DONE]\n\n");
  out.end();
}

// ---- reading a request, for scripts ----

/** The text of the last user message (string or content parts). */
export function lastUserText(call: ChatCall): string {
  const m = [...call.messages].reverse().find((x) => x.role === "user");
  return m ? contentText(m.content) : "";
}

export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p: any) => (typeof p === "string" ? p : (p?.text ?? ""))).join("");
  return "";
}

/** Results of tool calls sent back since the last user message, in order. */
export function toolResults(call: ChatCall): { id: string; name?: string; text: string }[] {
  const lastUser = call.messages.map((m) => m.role).lastIndexOf("user");
  const names = new Map<string, string>();
  for (const m of call.messages) for (const t of m.tool_calls ?? []) names.set(t.id, t.function?.name);
  return call.messages
    .slice(lastUser + 1)
    .filter((m) => m.role === "tool")
    .map((m) => ({ id: m.tool_call_id, name: names.get(m.tool_call_id), text: contentText(m.content) }));
}

/** Tool names called by the assistant since the last user message. */
export function toolsCalled(call: ChatCall): string[] {
  const lastUser = call.messages.map((m) => m.role).lastIndexOf("user");
  return call.messages.slice(lastUser + 1).flatMap((m) => (m.tool_calls ?? []).map((t: any) => t.function?.name));
}
