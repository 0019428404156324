// The agent side of an ACP connection (JSON-RPC 2.0, one JSON message a line on
// stdin/stdout) for our own agent processes (scripted/, openai-agent/, openai-image/),
// written out instead of taken from the ACP SDK: the SDK builds several hundred zod schemas
// when it loads (~5–10 MB of every worker process, a scripted worker was 58 MB with it;
// bench/RESULTS.md "Scale"), and agents that answer a handful of methods do not need them. What goes on the wire is the SDK's:
// the same error codes and texts, `$/cancel_request` both ways, requests refused until
// `initialize` was answered, "method not found" for anything else. Params are read
// defensively by the handlers (every field optional) instead of parsed by a schema.

export class RequestError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "RequestError";
  }

  static sessionNotFound(sessionId: string): RequestError {
    return new RequestError(-32002, "Resource not found", { sessionId });
  }

  static resourceNotFound(uri?: string): RequestError {
    return new RequestError(-32002, `Resource not found${uri ? `: ${uri}` : ""}`, uri && { uri });
  }

  static invalidParams(data?: unknown, additionalMessage?: string): RequestError {
    return new RequestError(-32602, `Invalid params${additionalMessage ? `: ${additionalMessage}` : ""}`, data);
  }
}

const CANCEL_REQUEST = "$/cancel_request";

/** ACP's protocol version (the SDK's PROTOCOL_VERSION). */
export const PROTOCOL_VERSION = 1;

type Id = string | number | null;
type Message = {
  jsonrpc?: unknown;
  id?: Id;
  method?: unknown;
  params?: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
};

export type RequestOptions = { cancellationSignal?: AbortSignal; stopWaitingOnCancel?: boolean };

/** The client at the other end, as a handler sees it. */
export type Peer = {
  notify(method: string, params: unknown): Promise<void>;
  request(method: string, params: unknown, options?: RequestOptions): Promise<unknown>;
};

// Params come off the wire unchecked: handlers take what they read as optional.
// biome-ignore lint/suspicious/noExplicitAny: each handler declares the params type it reads; `unknown` would not accept those handlers
export type RequestHandler = (params: any, peer: Peer, signal: AbortSignal) => unknown;
// biome-ignore lint/suspicious/noExplicitAny: as RequestHandler
export type NotificationHandler = (params: any, peer: Peer) => void;

export type AcpHandlers = {
  requests: Record<string, RequestHandler>;
  notifications: Record<string, NotificationHandler>;
};

function errorBody(e: unknown, signal: AbortSignal): { code: number; message: string; data?: unknown } {
  if (e instanceof RequestError) return { code: e.code, message: e.message, data: e.data };
  const name = (e as { name?: unknown } | null)?.name;
  if (signal.aborted && (name === "AbortError" || (e as { code?: unknown } | null)?.code === "ABORT_ERR")) {
    const r = signal.reason;
    return r instanceof RequestError && r.code === -32800
      ? { code: r.code, message: r.message, data: r.data }
      : { code: -32800, message: "Request cancelled", data: r };
  }
  const details = e instanceof Error ? e.message : undefined;
  try {
    return { code: -32603, message: "Internal error", data: details ? JSON.parse(details) : {} };
  } catch {
    return { code: -32603, message: "Internal error", data: { details } };
  }
}

/** Serves `handlers` on `input`/`output` until the input ends; resolves then. */
export function serveAcp(
  handlers: AcpHandlers,
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
): Promise<void> {
  const incoming = new Map<Id, AbortController>();
  const pending = new Map<Id, { resolve(v: unknown): void; reject(e: unknown): void; abandoned?: boolean }>();
  let nextId = 0;
  let initialized = false;

  const send = (message: object): Promise<void> =>
    new Promise((resolve, reject) => {
      output.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`, (e) => (e ? reject(e) : resolve()));
    });

  const peer: Peer = {
    notify: (method, params) => send({ method, params }),
    request(method, params, options = {}) {
      const id = nextId++;
      const signal = options.cancellationSignal;
      return new Promise((resolve, reject) => {
        const entry: { resolve(v: unknown): void; reject(e: unknown): void; abandoned?: boolean } = { resolve, reject };
        const cancel = () => {
          void send({ method: CANCEL_REQUEST, params: { requestId: id } }).catch(() => {});
          if (options.stopWaitingOnCancel) {
            // Kept in `pending` so the client's late answer is matched and dropped.
            entry.abandoned = true;
            reject(new RequestError(-32800, "Request cancelled", signal?.reason));
          }
        };
        const done = () => signal?.removeEventListener("abort", cancel);
        entry.resolve = (v) => {
          done();
          resolve(v);
        };
        entry.reject = (e) => {
          done();
          reject(e);
        };
        pending.set(id, entry);
        void send({ id, method, params }).catch(entry.reject);
        if (signal?.aborted) cancel();
        else signal?.addEventListener("abort", cancel, { once: true });
      });
    },
  };

  async function onRequest(id: Id, method: string, params: unknown): Promise<void> {
    const controller = new AbortController();
    incoming.set(id, controller);
    try {
      const handler = handlers.requests[method];
      if (!initialized && method !== "initialize") {
        throw new RequestError(-32600, `Invalid request: ACP connection must be initialized before '${method}'`);
      }
      if (!handler) throw new RequestError(-32601, `"Method not found": ${method}`, { method });
      const result = await handler(params ?? {}, peer, controller.signal);
      if (method === "initialize") initialized = true;
      await send({ id, result: result ?? null });
    } catch (e) {
      await send({ id, error: errorBody(e, controller.signal) }).catch(() => {});
    } finally {
      if (incoming.get(id) === controller) incoming.delete(id);
    }
  }

  function onMessage(m: Message): void {
    if (typeof m.method === "string") {
      if (m.id !== undefined) return void onRequest(m.id, m.method, m.params);
      if (m.method === CANCEL_REQUEST) {
        const requestId = (m.params as { requestId?: Id } | undefined)?.requestId;
        const c = requestId === undefined ? undefined : incoming.get(requestId);
        if (c && !c.signal.aborted) c.abort(new RequestError(-32800, "Request cancelled", { requestId }));
        return;
      }
      try {
        handlers.notifications[m.method]?.(m.params ?? {}, peer);
      } catch (e) {
        process.stderr.write(`ACP notification ${m.method} failed: ${e instanceof Error ? e.message : String(e)}\n`);
      }
      return;
    }
    const waiting = m.id === undefined ? undefined : pending.get(m.id);
    if (!waiting) return;
    pending.delete(m.id!);
    if (waiting.abandoned) return;
    if (m.error) waiting.reject(new RequestError(m.error.code, m.error.message, m.error.data));
    else waiting.resolve(m.result);
  }

  function onLine(line: string): void {
    if (line.trim() === "") return;
    let m: unknown;
    try {
      m = JSON.parse(line);
    } catch {
      void send({ id: null, error: { code: -32700, message: "Parse error" } }).catch(() => {});
      return;
    }
    if (m && typeof m === "object" && !Array.isArray(m) && (m as Message).jsonrpc === "2.0") onMessage(m as Message);
    else void send({ id: null, error: { code: -32600, message: "Invalid request" } }).catch(() => {});
  }

  return new Promise((resolve) => {
    let buffered = "";
    input.setEncoding("utf8");
    input.on("data", (chunk: string) => {
      buffered += chunk;
      let nl: number;
      while ((nl = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        onLine(line);
      }
    });
    const close = () => {
      for (const c of incoming.values()) c.abort(new Error("ACP connection closed"));
      for (const p of pending.values()) p.reject(new Error("ACP connection closed"));
      pending.clear();
      resolve();
    };
    input.once("end", close);
    input.once("close", close);
    input.once("error", close);
  });
}
