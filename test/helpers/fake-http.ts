// The plumbing shared by the fake model servers (fake-openai.ts, fake-anthropic.ts): a
// loopback-only HTTP server, request bodies read as JSON (or multipart form data), and
// Server-Sent Events written the way the real APIs write them.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";

export interface RawRequest {
  method: string;
  /** The path without the query string. */
  path: string;
  query: URLSearchParams;
  headers: Record<string, string>;
  /** Parsed JSON body, or the fields of a multipart form (files as { filename, type, size }). */
  body: any;
}

export type Route = (req: RawRequest, res: ServerResponse) => Promise<void> | void;

export async function listenLoopback(route: Route): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    readRequest(req)
      .then((raw) => route(raw, res))
      .catch((err) => {
        if (!res.headersSent)
          sendJson(res, 500, { error: { message: `fake server failed: ${String(err?.stack ?? err)}` } });
        else res.end();
      });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return { server, port };
}

async function readRequest(req: IncomingMessage): Promise<RawRequest> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const buf = Buffer.concat(chunks);
  const url = new URL(req.url ?? "/", "http://127.0.0.1");
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers))
    if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(", ") : v;
  const type = headers["content-type"] ?? "";
  let body: any = null;
  if (buf.length && type.startsWith("multipart/form-data")) {
    // undici's Response parses multipart for us; keep files as their metadata plus bytes.
    const form = await new Response(buf, { headers: { "content-type": type } }).formData();
    body = {};
    for (const [k, v] of form.entries()) {
      const value =
        typeof v === "string"
          ? v
          : { filename: (v as File).name, type: v.type, size: v.size, bytes: Buffer.from(await v.arrayBuffer()) };
      if (k in body) body[k] = [...[body[k]].flat(), value];
      else body[k] = value;
    }
  } else if (buf.length) {
    try {
      body = JSON.parse(buf.toString("utf8"));
    } catch {
      body = buf.toString("utf8");
    }
  }
  return { method: req.method ?? "GET", path: url.pathname, query: url.searchParams, headers, body };
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

/** Starts an SSE response; `event` is written only when given (Anthropic names events, OpenAI does not). */
export function sse(res: ServerResponse): {
  send(data: unknown, event?: string): void;
  raw(line: string): void;
  end(): void;
} {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  return {
    send(data, event) {
      res.write(`${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`);
    },
    raw(line) {
      res.write(line);
    },
    end() {
      res.end();
    },
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Cuts text into a few pieces so a streamed answer arrives as several deltas. */
export function pieces(text: string, size = 12): string[] {
  if (!text) return [];
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** Resolves once `check` holds (polled): for tests waiting on a request the CLI will make. */
export async function until<T>(check: () => T | undefined | null | false, timeoutMs: number, what: string): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}
