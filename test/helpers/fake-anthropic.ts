// A local model server speaking Anthropic's Messages API, for Claude Code (the claude and
// claude-api providers, through ANTHROPIC_BASE_URL + ANTHROPIC_API_KEY):
//   POST /v1/messages             streamed (message_start, content_block_start/delta with
//                                 text, thinking and tool_use input_json_delta, message_delta
//                                 with usage, message_stop) or not
//   POST /v1/messages/count_tokens, GET /v1/models
// Claude Code also sends side requests besides the agent loop (its auto-mode classifier asks
// non-streamed, "security monitor", and expects `<block>no</block>` or `<block>yes</block>…`;
// older builds asked for `<severity>N`; titles, summaries): `kind` tells them apart, and
// side requests get plain answers unless the test scripts them. Loopback only.
import type { Server, ServerResponse } from "node:http";
import { listenLoopback, pieces, sendJson, sleep, sse, until, type RawRequest } from "./fake-http.ts";

export interface MessagesCall {
  n: number;
  model: string;
  stream: boolean;
  /** The system prompt as one text. */
  system: string;
  messages: any[];
  /** Names of the tools offered (client tools; MCP tools appear once ToolSearch loaded them). */
  tools: string[];
  /** "main": the agent loop (has tools); "classifier": the auto-mode safety check; "side": other helpers' calls. */
  kind: "main" | "classifier" | "side";
  body: any;
  headers: Record<string, string>;
  authorized: boolean;
}

export interface ToolUseAnswer {
  id?: string;
  name: string;
  input: unknown;
}

export interface MessagesAnswer {
  text?: string;
  thinking?: string;
  toolUses?: ToolUseAnswer[];
  usage?: {
    input_tokens?: number;
    output_tokens?: number;
    cache_read_input_tokens?: number;
    cache_creation_input_tokens?: number;
  };
  stopReason?: string;
  delayMs?: number;
  chunkDelayMs?: number;
}

export interface ErrorAnswer {
  error: { status: number; type?: string; message?: string };
}

export type Answer = MessagesAnswer | ErrorAnswer;
export type MessagesScript = (call: MessagesCall, server: FakeAnthropic) => Answer | Promise<Answer>;

export const errors = {
  unauthorized: (): ErrorAnswer => ({
    error: { status: 401, type: "authentication_error", message: "invalid x-api-key" },
  }),
  rateLimited: (): ErrorAnswer => ({
    error: {
      status: 429,
      type: "rate_limit_error",
      message: "Number of request tokens has exceeded your per-minute rate limit",
    },
  }),
  overloaded: (): ErrorAnswer => ({ error: { status: 529, type: "overloaded_error", message: "Overloaded" } }),
  serverError: (): ErrorAnswer => ({ error: { status: 500, type: "api_error", message: "Internal server error" } }),
};

export interface FakeAnthropicOptions {
  /** The key accepted (x-api-key, or `Authorization: Bearer`); null accepts anything. Default "test-key". */
  apiKey?: string | null;
  models?: string[];
  /** Answers the agent loop ("main" calls). */
  script?: MessagesScript;
  /** The auto-mode classifier's verdict on an action. Default "allow". */
  classify?: (call: MessagesCall) => "allow" | "block";
}

export class FakeAnthropic {
  readonly calls: MessagesCall[] = [];
  readonly requests: RawRequest[] = [];
  apiKey: string | null;
  models: string[];
  classify: NonNullable<FakeAnthropicOptions["classify"]>;
  private answers: Answer[] = [];
  private script: MessagesScript;
  private seq = 0;

  private constructor(
    private server: Server,
    readonly port: number,
    opts: FakeAnthropicOptions,
  ) {
    this.apiKey = opts.apiKey === undefined ? "test-key" : opts.apiKey;
    this.models = opts.models ?? ["claude-opus-5-5", "claude-sonnet-5-5", "claude-haiku-5"];
    this.script = opts.script ?? (() => ({ text: "ok" }));
    this.classify = opts.classify ?? (() => "allow");
  }

  static async start(opts: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
    let self!: FakeAnthropic;
    const { server, port } = await listenLoopback((req, res) => self.route(req, res));
    self = new FakeAnthropic(server, port, opts);
    return self;
  }

  /** What ANTHROPIC_BASE_URL takes (no `/v1`). */
  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Answers for "main" calls used first, in order, before the script. */
  queue(...answers: Answer[]): this {
    this.answers.push(...answers);
    return this;
  }
  setScript(script: MessagesScript): this {
    this.script = script;
    return this;
  }
  reset(): void {
    this.calls.length = 0;
    this.requests.length = 0;
    this.answers.length = 0;
  }
  get mainCalls(): MessagesCall[] {
    return this.calls.filter((c) => c.kind === "main");
  }

  waitForCall(
    pred: (c: MessagesCall) => boolean = (c) => c.kind === "main",
    timeoutMs = 60_000,
  ): Promise<MessagesCall> {
    return until(() => this.calls.find(pred), timeoutMs, "a Messages request");
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }

  private authorized(req: RawRequest): boolean {
    if (this.apiKey === null) return true;
    return req.headers["x-api-key"] === this.apiKey || req.headers.authorization === `Bearer ${this.apiKey}`;
  }

  private async route(req: RawRequest, res: ServerResponse): Promise<void> {
    this.requests.push(req);
    const ok = this.authorized(req);
    if (req.method === "POST" && req.path.endsWith("/v1/messages")) {
      const body = req.body ?? {};
      const system = systemText(body.system);
      const tools: string[] = Array.isArray(body.tools) ? body.tools.map((t: any) => t?.name).filter(Boolean) : [];
      const call: MessagesCall = {
        n: ++this.seq,
        model: String(body.model ?? ""),
        stream: !!body.stream,
        system,
        messages: Array.isArray(body.messages) ? body.messages : [],
        tools,
        kind: isClassifier(system, body) ? "classifier" : tools.length ? "main" : "side",
        body,
        headers: req.headers,
        authorized: ok,
      };
      this.calls.push(call);
      if (!ok) return writeError(res, errors.unauthorized());
      let answer: Answer;
      if (call.kind === "classifier") answer = { text: classifierText(call, this.classify(call)) };
      else if (call.kind === "side") answer = { text: "Relay session" };
      else answer = this.answers.length ? this.answers.shift()! : await this.script(call, this);
      if ("error" in answer) return writeError(res, answer);
      if (answer.delayMs) await sleep(answer.delayMs);
      return call.stream ? writeStream(res, call, answer) : writeWhole(res, call, answer);
    }
    if (!ok) return writeError(res, errors.unauthorized());
    if (req.method === "POST" && req.path.endsWith("/v1/messages/count_tokens")) {
      return sendJson(res, 200, { input_tokens: Math.ceil(JSON.stringify(req.body ?? {}).length / 4) });
    }
    if (req.method === "GET" && req.path.endsWith("/v1/models")) {
      const data = this.models.map((id) => ({
        type: "model",
        id,
        display_name: id,
        created_at: "2026-01-01T00:00:00Z",
      }));
      return sendJson(res, 200, {
        data,
        has_more: false,
        first_id: data[0]?.id ?? null,
        last_id: data.at(-1)?.id ?? null,
      });
    }
    sendJson(res, 404, {
      type: "error",
      error: { type: "not_found_error", message: `Not found: ${req.method} ${req.path}` },
    });
  }
}

function systemText(system: unknown): string {
  if (typeof system === "string") return system;
  if (Array.isArray(system)) return system.map((b: any) => b?.text ?? "").join("\n");
  return "";
}

/** Claude Code's auto-mode classifier: a "security monitor" asked for a `<block>` (or, in
 * older builds, `<severity>`) verdict on a transcript. */
function isClassifier(system: string, body: any): boolean {
  const tail = JSON.stringify(body.messages ?? []).slice(-4000);
  return /security monitor/i.test(system.slice(0, 2000)) || /<transcript>/.test(tail) || /<severity>/i.test(tail);
}

function classifierText(call: MessagesCall, verdict: "allow" | "block"): string {
  if (/<severity>/i.test(JSON.stringify(call.messages).slice(-4000)) && !/<block>/.test(call.system))
    return `<severity>${verdict === "allow" ? 0 : 90}</severity>`;
  return verdict === "allow"
    ? "<block>no</block>"
    : "<block>yes</block><category>Test Block</category><reason>[Test Block] blocked by the test</reason>";
}

function writeError(res: ServerResponse, a: ErrorAnswer): void {
  const { status, type = "api_error", message = "error" } = a.error;
  sendJson(res, status, { type: "error", error: { type, message } }, { "request-id": `req_fake_${Date.now()}` });
}

let idSeq = 0;
function blocksOf(a: MessagesAnswer) {
  const blocks: any[] = [];
  if (a.thinking) blocks.push({ type: "thinking", thinking: a.thinking, signature: "fake-signature" });
  if (a.text) blocks.push({ type: "text", text: a.text });
  for (const t of a.toolUses ?? [])
    blocks.push({ type: "tool_use", id: t.id ?? `toolu_fake_${++idSeq}`, name: t.name, input: t.input ?? {} });
  return blocks;
}

function usageOf(call: MessagesCall, a: MessagesAnswer) {
  return {
    input_tokens: a.usage?.input_tokens ?? Math.ceil(JSON.stringify(call.messages).length / 4),
    output_tokens:
      a.usage?.output_tokens ?? Math.ceil(((a.text ?? "").length + JSON.stringify(a.toolUses ?? []).length) / 4) + 1,
    cache_read_input_tokens: a.usage?.cache_read_input_tokens ?? 0,
    cache_creation_input_tokens: a.usage?.cache_creation_input_tokens ?? 0,
  };
}

const stopOf = (a: MessagesAnswer) => a.stopReason ?? (a.toolUses?.length ? "tool_use" : "end_turn");

function writeWhole(res: ServerResponse, call: MessagesCall, a: MessagesAnswer): void {
  sendJson(res, 200, {
    id: `msg_fake_${call.n}`,
    type: "message",
    role: "assistant",
    model: call.model,
    content: blocksOf(a),
    stop_reason: stopOf(a),
    stop_sequence: null,
    usage: usageOf(call, a),
  });
}

async function writeStream(res: ServerResponse, call: MessagesCall, a: MessagesAnswer): Promise<void> {
  const out = sse(res);
  const send = async (event: string, data: object) => {
    out.send({ type: event, ...data }, event);
    if (a.chunkDelayMs) await sleep(a.chunkDelayMs);
  };
  const usage = usageOf(call, a);
  await send("message_start", {
    message: {
      id: `msg_fake_${call.n}`,
      type: "message",
      role: "assistant",
      model: call.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage, output_tokens: 1 },
    },
  });
  out.send({ type: "ping" }, "ping");
  for (const [index, b] of blocksOf(a).entries()) {
    if (b.type === "text") {
      await send("content_block_start", { index, content_block: { type: "text", text: "" } });
      for (const p of pieces(b.text))
        await send("content_block_delta", { index, delta: { type: "text_delta", text: p } });
    } else if (b.type === "thinking") {
      await send("content_block_start", { index, content_block: { type: "thinking", thinking: "", signature: "" } });
      for (const p of pieces(b.thinking))
        await send("content_block_delta", { index, delta: { type: "thinking_delta", thinking: p } });
      await send("content_block_delta", { index, delta: { type: "signature_delta", signature: b.signature } });
    } else {
      await send("content_block_start", {
        index,
        content_block: { type: "tool_use", id: b.id, name: b.name, input: {} },
      });
      for (const p of pieces(JSON.stringify(b.input), 24))
        await send("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: p } });
    }
    await send("content_block_stop", { index });
  }
  await send("message_delta", {
    delta: { stop_reason: stopOf(a), stop_sequence: null },
    usage: { output_tokens: usage.output_tokens },
  });
  await send("message_stop", {});
  out.end();
}

// ---- reading a request, for scripts ----

/** Text of the last user message that is not only tool results. */
export function lastUserText(call: MessagesCall): string {
  for (const m of [...call.messages].reverse()) {
    if (m.role !== "user") continue;
    if (typeof m.content === "string") return m.content;
    const texts = (m.content ?? []).filter((b: any) => b.type === "text").map((b: any) => b.text);
    if (texts.length) return texts.join("\n");
  }
  return "";
}

/** tool_result blocks in the last user message, with the tool's name looked up from its tool_use. */
export function toolResults(call: MessagesCall): { id: string; name?: string; text: string; isError: boolean }[] {
  const names = new Map<string, string>();
  for (const m of call.messages)
    if (Array.isArray(m.content)) for (const b of m.content) if (b.type === "tool_use") names.set(b.id, b.name);
  const last = call.messages.at(-1);
  if (last?.role !== "user" || !Array.isArray(last.content)) return [];
  return last.content
    .filter((b: any) => b.type === "tool_result")
    .map((b: any) => ({
      id: b.tool_use_id,
      name: names.get(b.tool_use_id),
      text: typeof b.content === "string" ? b.content : (b.content ?? []).map((c: any) => c.text ?? "").join(""),
      isError: !!b.is_error,
    }));
}

/** All tool names the assistant has called in this conversation so far. */
export function toolsCalled(call: MessagesCall): string[] {
  return call.messages.flatMap((m) =>
    Array.isArray(m.content) ? m.content.filter((b: any) => b.type === "tool_use").map((b: any) => b.name) : [],
  );
}
