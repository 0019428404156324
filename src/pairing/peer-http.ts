import http from "node:http";
import https from "node:https";

// The peer API's client side: JSON over HTTP(S) with a short connect timeout (a dead relay
// is known in seconds, never blocks anything else: every request is its own async socket)
// and an overall limit per request. No response headers timeout: the far side may hold a
// request (a wait, the event long-poll) as long as the call asked.

export const CONNECT_TIMEOUT_MS = Number(process.env.OAR_PEER_CONNECT_MS) > 0 ? Number(process.env.OAR_PEER_CONNECT_MS) : 4_000;

export interface PeerResponse {
  status: number;
  json: any;
  /** The version the other relay presented (header oar-version). */
  version: string | null;
}

/** Why a request did not get an answer: the relay is offline (or cut off), or the caller gave up. */
export class PeerUnreachable extends Error {
  constructor(message: string, readonly aborted = false, readonly staleSocket = false) {
    super(message);
  }
}

const agents = { http: new http.Agent({ keepAlive: true, maxSockets: 64 }), https: new https.Agent({ keepAlive: true, maxSockets: 64 }) };

export async function peerRequest(
  base: string,
  method: "GET" | "POST" | "DELETE",
  path: string,
  opts: { credential?: string; body?: unknown; version: string; name: string; timeoutMs: number; signal?: AbortSignal },
): Promise<PeerResponse> {
  try {
    return await attempt(base, method, path, opts);
  } catch (err) {
    // A kept-alive socket the other side closed as idle just as it was reused: the request
    // never reached it (Node's documented race), so it is sent once more on a fresh socket.
    if (err instanceof PeerUnreachable && err.staleSocket) return attempt(base, method, path, opts);
    throw err;
  }
}

function attempt(
  base: string,
  method: "GET" | "POST" | "DELETE",
  path: string,
  opts: { credential?: string; body?: unknown; version: string; name: string; timeoutMs: number; signal?: AbortSignal },
): Promise<PeerResponse> {
  const url = new URL(base.replace(/\/+$/, "") + path);
  const mod = url.protocol === "https:" ? https : http;
  const body = opts.body === undefined ? undefined : Buffer.from(JSON.stringify(opts.body));
  return new Promise<PeerResponse>((resolve, reject) => {
    let done = false;
    const finish = (err: Error | null, value?: PeerResponse) => {
      if (done) return;
      done = true;
      clearTimeout(connectTimer);
      clearTimeout(totalTimer);
      opts.signal?.removeEventListener("abort", onAbort);
      if (err) reject(err);
      else resolve(value!);
    };
    const req = mod.request(url, {
      method,
      agent: url.protocol === "https:" ? agents.https : agents.http,
      headers: {
        accept: "application/json",
        "oar-version": opts.version,
        "oar-relay": encodeURIComponent(opts.name),
        ...(opts.credential ? { authorization: `Bearer ${opts.credential}` } : {}),
        ...(body ? { "content-type": "application/json", "content-length": String(body.length) } : {}),
      },
    });
    const fail = (why: string, aborted = false) => {
      req.destroy();
      finish(new PeerUnreachable(why, aborted));
    };
    const connectTimer = setTimeout(() => fail(`no connection within ${Math.round(CONNECT_TIMEOUT_MS / 1000)} s`), CONNECT_TIMEOUT_MS);
    const totalTimer = setTimeout(() => fail(`no answer within ${Math.round(opts.timeoutMs / 1000)} s`), opts.timeoutMs);
    const onAbort = () => fail("the call was cancelled", true);
    if (opts.signal?.aborted) return onAbort();
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    req.on("socket", (s) => {
      if (!s.connecting) clearTimeout(connectTimer);
      else s.once("connect", () => clearTimeout(connectTimer));
    });
    let gotResponse = false;
    req.on("error", (e) => {
      const code = (e as NodeJS.ErrnoException).code ?? e.message;
      finish(new PeerUnreachable(code, false, req.reusedSocket && !gotResponse && (code === "ECONNRESET" || code === "EPIPE")));
    });
    req.on("response", (res) => {
      gotResponse = true;
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("error", (e) => finish(new PeerUnreachable(e.message)));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let json: any = null;
        try {
          json = text ? JSON.parse(text) : null;
        } catch {
          json = null;
        }
        const v = res.headers["oar-version"];
        finish(null, { status: res.statusCode ?? 0, json, version: typeof v === "string" ? v : null });
      });
    });
    if (body) req.write(body);
    req.end();
  });
}
