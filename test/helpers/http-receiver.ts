// A loopback HTTP(S) server that keeps every request it receives (raw body, headers) and
// answers as the test says: the base of the fake push service, webhook and ntfy receivers.
// Tests wait for the n-th request by event, never by sleeping.
import http, { type IncomingHttpHeaders } from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";

export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

export class HttpReceiver {
  readonly requests: Received[] = [];
  /** How the next request is answered (201 unless the test says otherwise). */
  answer: (r: Received) => Answer = () => ({ status: 201 });
  private waiters: { n: number; resolve: () => void }[] = [];

  private constructor(
    private server: http.Server,
    readonly origin: string,
  ) {}

  static async start(opts: { tls?: { cert: string; key: string } } = {}): Promise<HttpReceiver> {
    let self: HttpReceiver | null = null;
    const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const r: Received = {
          method: req.method ?? "",
          path: req.url ?? "/",
          headers: req.headers,
          body: Buffer.concat(chunks),
        };
        let a: Answer;
        try {
          a = self!.answer(r);
        } catch (err) {
          a = { status: 500, body: String(err) };
        }
        self!.requests.push(r);
        res.writeHead(a.status, a.headers ?? {});
        res.end(a.body ?? "");
        self!.wake();
      });
    };
    const server = opts.tls
      ? https.createServer({ cert: opts.tls.cert, key: opts.tls.key }, handler)
      : http.createServer(handler);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    self = new HttpReceiver(server, `${opts.tls ? "https" : "http"}://127.0.0.1:${port}`);
    return self;
  }

  url(path = "/"): string {
    return `${this.origin}${path}`;
  }

  /** Resolves once `n` requests in all have arrived. */
  received(n: number): Promise<Received[]> {
    if (this.requests.length >= n) return Promise.resolve(this.requests.slice(0, n));
    return new Promise((resolve) => this.waiters.push({ n, resolve: () => resolve(this.requests.slice(0, n)) }));
  }

  private wake(): void {
    const ready = this.waiters.filter((w) => this.requests.length >= w.n);
    this.waiters = this.waiters.filter((w) => this.requests.length < w.n);
    for (const w of ready) w.resolve();
  }

  close(): Promise<void> {
    this.server.closeAllConnections?.();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
