// A local model server speaking OpenAI's Responses API, for Codex (a `model_providers` entry
// in its config.toml with `base_url` and `wire_api = "responses"`):
//   POST /v1/responses   streamed as Codex reads it: response.created, output_item.added,
//        output_text.delta / function_call_arguments.delta, output_item.done,
//        response.completed (with usage)
//   GET  /v1/models
// Codex offers an MCP server's tools as a `namespace` tool (`mcp__relay` holding
// `relay_tool`); a function call names the tool and its namespace. The key comes as
// `Authorization: Bearer`; a wrong one gets OpenAI's 401. Loopback only.
import type { Server, ServerResponse } from "node:http";
import { listenLoopback, pieces, sendJson, sleep, sse, until, type RawRequest } from "./fake-http.ts";

export interface ResponsesCall {
  n: number;
  model: string;
  /** `input` as sent: messages, function_call and function_call_output items. */
  input: any[];
  /** Tool names, a namespaced one as `namespace.name` (`mcp__relay.relay_tool`). */
  tools: string[];
  body: any;
  headers: Record<string, string>;
  authorized: boolean;
}

export interface ResponsesAnswer {
  text?: string;
  toolCalls?: { name: string; namespace?: string; arguments: unknown }[];
  usage?: { input_tokens?: number; output_tokens?: number };
  delayMs?: number;
}
export interface ResponsesError {
  error: { status: number; message: string; code: string };
}
export type ResponsesScript = (
  call: ResponsesCall,
  server: FakeResponses,
) => ResponsesAnswer | ResponsesError | Promise<ResponsesAnswer | ResponsesError>;

export class FakeResponses {
  readonly calls: ResponsesCall[] = [];
  apiKey: string | null;
  models: string[];
  private script: ResponsesScript;
  private seq = 0;

  private constructor(
    private server: Server,
    readonly port: number,
    opts: { apiKey?: string | null; models?: string[]; script?: ResponsesScript },
  ) {
    this.apiKey = opts.apiKey === undefined ? "test-key" : opts.apiKey;
    this.models = opts.models ?? ["gpt-5.5"];
    this.script = opts.script ?? (() => ({ text: "ok" }));
  }

  static async start(
    opts: { apiKey?: string | null; models?: string[]; script?: ResponsesScript } = {},
  ): Promise<FakeResponses> {
    let self!: FakeResponses;
    const { server, port } = await listenLoopback((req, res) => self.route(req, res));
    self = new FakeResponses(server, port, opts);
    return self;
  }

  /** Base URL including `/v1` (a Codex model provider's `base_url`). */
  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }
  setScript(script: ResponsesScript): this {
    this.script = script;
    return this;
  }
  reset(): void {
    this.calls.length = 0;
  }
  waitForCall(pred: (c: ResponsesCall) => boolean = () => true, timeoutMs = 60_000): Promise<ResponsesCall> {
    return until(() => this.calls.find(pred), timeoutMs, "a Responses request");
  }
  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }

  private async route(req: RawRequest, res: ServerResponse): Promise<void> {
    const ok = this.apiKey === null || req.headers.authorization === `Bearer ${this.apiKey}`;
    if (req.method === "POST" && req.path.endsWith("/responses")) {
      const body = req.body ?? {};
      const tools: string[] = (Array.isArray(body.tools) ? body.tools : [])
        .flatMap((t: any) =>
          t?.type === "namespace" ? (t.tools ?? []).map((x: any) => `${t.name}.${x.name}`) : [t?.name ?? t?.type],
        )
        .filter(Boolean);
      const call: ResponsesCall = {
        n: ++this.seq,
        model: String(body.model ?? ""),
        input: Array.isArray(body.input) ? body.input : [],
        tools,
        body,
        headers: req.headers,
        authorized: ok,
      };
      this.calls.push(call);
      if (!ok)
        return writeError(res, {
          error: { status: 401, message: "Incorrect API key provided.", code: "invalid_api_key" },
        });
      const answer = await this.script(call, this);
      if ("error" in answer) return writeError(res, answer);
      if (answer.delayMs) await sleep(answer.delayMs);
      return writeStream(res, call, answer);
    }
    if (!ok)
      return writeError(res, {
        error: { status: 401, message: "Incorrect API key provided.", code: "invalid_api_key" },
      });
    if (req.method === "GET" && req.path.endsWith("/models"))
      return sendJson(res, 200, {
        object: "list",
        data: this.models.map((id) => ({ id, object: "model", owned_by: "fake" })),
      });
    sendJson(res, 404, {
      error: {
        message: `Unknown request URL: ${req.method} ${req.path}`,
        type: "invalid_request_error",
        code: "unknown_url",
      },
    });
  }
}

function writeError(res: ServerResponse, e: ResponsesError): void {
  sendJson(res, e.error.status, {
    error: { message: e.error.message, type: "invalid_request_error", param: null, code: e.error.code },
  });
}

let itemSeq = 0;

async function writeStream(res: ServerResponse, call: ResponsesCall, a: ResponsesAnswer): Promise<void> {
  const out = sse(res);
  const id = `resp_${call.n}`;
  const response = (status: string, output: object[]) => ({
    id,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status,
    model: call.model,
    output,
  });
  const send = (type: string, data: object) => out.send({ type, ...data }, type);
  send("response.created", { response: response("in_progress", []) });
  const output: object[] = [];
  if (a.text) {
    const itemId = `msg_${++itemSeq}`;
    const item = {
      type: "message",
      id: itemId,
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: a.text, annotations: [] }],
    };
    const at = output.length;
    send("response.output_item.added", { output_index: at, item: { ...item, status: "in_progress", content: [] } });
    send("response.content_part.added", {
      output_index: at,
      item_id: itemId,
      content_index: 0,
      part: { type: "output_text", text: "", annotations: [] },
    });
    for (const p of pieces(a.text, 16))
      send("response.output_text.delta", { output_index: at, item_id: itemId, content_index: 0, delta: p });
    send("response.output_text.done", { output_index: at, item_id: itemId, content_index: 0, text: a.text });
    send("response.output_item.done", { output_index: at, item });
    output.push(item);
  }
  for (const t of a.toolCalls ?? []) {
    const n = ++itemSeq;
    const args = typeof t.arguments === "string" ? t.arguments : JSON.stringify(t.arguments ?? {});
    const item = {
      type: "function_call",
      id: `fc_${n}`,
      call_id: `call_${n}`,
      name: t.name,
      ...(t.namespace ? { namespace: t.namespace } : {}),
      arguments: args,
      status: "completed",
    };
    const at = output.length;
    send("response.output_item.added", { output_index: at, item: { ...item, arguments: "", status: "in_progress" } });
    for (const p of pieces(args, 24))
      send("response.function_call_arguments.delta", { output_index: at, item_id: item.id, delta: p });
    send("response.output_item.done", { output_index: at, item });
    output.push(item);
  }
  const input = a.usage?.input_tokens ?? Math.ceil(JSON.stringify(call.input).length / 4);
  const outTokens = a.usage?.output_tokens ?? Math.ceil((a.text ?? "").length / 4) + 1;
  send("response.completed", {
    response: {
      ...response("completed", output),
      usage: {
        input_tokens: input,
        output_tokens: outTokens,
        total_tokens: input + outTokens,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens_details: { reasoning_tokens: 0 },
      },
    },
  });
  out.end();
}
