// A local model server speaking the Gemini API (generativelanguage v1beta), for Gemini CLI
// (GOOGLE_GEMINI_BASE_URL + GEMINI_API_KEY):
//   POST /v1beta/models/{model}:streamGenerateContent?alt=sse   the agent loop: SSE, each
//        event a GenerateContentResponse (candidates[0].content.parts: text or functionCall;
//        finishReason and usageMetadata on the last)
//   POST /v1beta/models/{model}:generateContent    one JSON answer (Gemini CLI's side calls:
//        its model router and its checks answer from a JSON schema; "{}" is read as no opinion)
//   POST /v1beta/models/{model}:countTokens, GET /v1beta/models
// The key comes in `x-goog-api-key` (or `?key=`); a wrong one gets Google's 400
// "API key not valid". Tests script the agent loop like the other fakes. Loopback only.
import type { Server, ServerResponse } from "node:http";
import { listenLoopback, pieces, sendJson, sleep, sse, until, type RawRequest } from "./fake-http.ts";

export interface GeminiCall {
  n: number;
  model: string;
  stream: boolean;
  /** `contents` as sent: [{ role: "user"|"model", parts: [{ text } | { functionCall } | { functionResponse }] }]. */
  contents: any[];
  /** Function names declared in `tools[].functionDeclarations`. */
  tools: string[];
  /** "main": a streamed call with tools (the agent loop); "side": everything else. */
  kind: "main" | "side";
  body: any;
  headers: Record<string, string>;
  authorized: boolean;
}

export interface GeminiAnswer {
  text?: string;
  functionCalls?: { name: string; args: unknown }[];
  usage?: { promptTokenCount?: number; candidatesTokenCount?: number };
  delayMs?: number;
}
export interface GeminiError {
  error: { status: number; message: string; reason: string };
}
export type GeminiScript = (
  call: GeminiCall,
  server: FakeGemini,
) => GeminiAnswer | GeminiError | Promise<GeminiAnswer | GeminiError>;

export const geminiErrors = {
  badKey: (): GeminiError => ({
    error: { status: 400, message: "API key not valid. Please pass a valid API key.", reason: "INVALID_ARGUMENT" },
  }),
};

export class FakeGemini {
  readonly calls: GeminiCall[] = [];
  apiKey: string | null;
  models: string[];
  private script: GeminiScript;
  private seq = 0;

  private constructor(
    private server: Server,
    readonly port: number,
    opts: { apiKey?: string | null; models?: string[]; script?: GeminiScript },
  ) {
    this.apiKey = opts.apiKey === undefined ? "test-key" : opts.apiKey;
    this.models = opts.models ?? ["gemini-2.5-pro", "gemini-3.8-flash"];
    this.script = opts.script ?? (() => ({ text: "ok" }));
  }

  static async start(
    opts: { apiKey?: string | null; models?: string[]; script?: GeminiScript } = {},
  ): Promise<FakeGemini> {
    let self!: FakeGemini;
    const { server, port } = await listenLoopback((req, res) => self.route(req, res));
    self = new FakeGemini(server, port, opts);
    return self;
  }

  /** What GOOGLE_GEMINI_BASE_URL takes. */
  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }
  get mainCalls(): GeminiCall[] {
    return this.calls.filter((c) => c.kind === "main");
  }
  setScript(script: GeminiScript): this {
    this.script = script;
    return this;
  }
  reset(): void {
    this.calls.length = 0;
  }
  waitForCall(pred: (c: GeminiCall) => boolean = (c) => c.kind === "main", timeoutMs = 60_000): Promise<GeminiCall> {
    return until(() => this.calls.find(pred), timeoutMs, "a Gemini request");
  }
  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }

  private authorized(req: RawRequest): boolean {
    return (
      this.apiKey === null || req.headers["x-goog-api-key"] === this.apiKey || req.query.get("key") === this.apiKey
    );
  }

  private async route(req: RawRequest, res: ServerResponse): Promise<void> {
    const ok = this.authorized(req);
    const m = /\/models\/([^/:]+):(streamGenerateContent|generateContent|countTokens)$/.exec(req.path);
    if (req.method === "POST" && m && m[2] !== "countTokens") {
      const body = req.body ?? {};
      const tools: string[] = (Array.isArray(body.tools) ? body.tools : [])
        .flatMap((t: any) => (t?.functionDeclarations ?? []).map((f: any) => f?.name))
        .filter(Boolean);
      const stream = m[2] === "streamGenerateContent";
      const call: GeminiCall = {
        n: ++this.seq,
        model: decodeURIComponent(m[1]),
        stream,
        contents: Array.isArray(body.contents) ? body.contents : [],
        tools,
        kind: stream && tools.length ? "main" : "side",
        body,
        headers: req.headers,
        authorized: ok,
      };
      this.calls.push(call);
      if (!ok) return writeError(res, geminiErrors.badKey());
      const answer = call.kind === "main" ? await this.script(call, this) : { text: "{}" };
      if ("error" in answer) return writeError(res, answer);
      if (answer.delayMs) await sleep(answer.delayMs);
      return stream ? writeStream(res, call, answer) : sendJson(res, 200, lastChunk(call, answer, answerParts(answer)));
    }
    if (!ok) return writeError(res, geminiErrors.badKey());
    if (req.method === "POST" && m)
      return sendJson(res, 200, { totalTokens: Math.ceil(JSON.stringify(req.body ?? {}).length / 4) });
    if (req.method === "GET" && req.path.endsWith("/models")) {
      return sendJson(res, 200, {
        models: this.models.map((id) => ({
          name: `models/${id}`,
          displayName: id,
          supportedGenerationMethods: ["generateContent", "countTokens"],
        })),
      });
    }
    sendJson(res, 404, { error: { code: 404, message: `Not found: ${req.method} ${req.path}`, status: "NOT_FOUND" } });
  }
}

function writeError(res: ServerResponse, e: GeminiError): void {
  sendJson(res, e.error.status, { error: { code: e.error.status, message: e.error.message, status: e.error.reason } });
}

const answerParts = (a: GeminiAnswer) => [
  ...(a.text ? [{ text: a.text }] : []),
  ...(a.functionCalls ?? []).map((f) => ({ functionCall: { name: f.name, args: f.args ?? {} } })),
];

function usageOf(call: GeminiCall, a: GeminiAnswer) {
  const prompt = a.usage?.promptTokenCount ?? Math.ceil(JSON.stringify(call.contents).length / 4);
  const out = a.usage?.candidatesTokenCount ?? Math.ceil((a.text ?? "").length / 4) + 1;
  return { promptTokenCount: prompt, candidatesTokenCount: out, totalTokenCount: prompt + out };
}

function lastChunk(call: GeminiCall, a: GeminiAnswer, parts: object[]) {
  return {
    candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
    usageMetadata: usageOf(call, a),
    modelVersion: call.model,
    responseId: `resp-${call.n}`,
  };
}

async function writeStream(res: ServerResponse, call: GeminiCall, a: GeminiAnswer): Promise<void> {
  const out = sse(res);
  const texts = pieces(a.text ?? "", 16);
  // Text arrives in pieces; function calls come whole in the last event, as Gemini sends them.
  for (const t of texts.slice(0, -1))
    out.send({
      candidates: [{ content: { role: "model", parts: [{ text: t }] }, index: 0 }],
      modelVersion: call.model,
    });
  const calls = (a.functionCalls ?? []).map((f) => ({ functionCall: { name: f.name, args: f.args ?? {} } }));
  out.send(lastChunk(call, a, [...(texts.length ? [{ text: texts.at(-1) }] : []), ...calls]));
  out.end();
}
