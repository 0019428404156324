import http from "node:http";
import https from "node:https";
import { pinnedAgent } from "../ops/tls.ts";
import { RelayError } from "../core/errors.ts";

// The peer API's client side: JSON over HTTP(S) with a short connect timeout (a dead relay
// is known in seconds, never blocks anything else: every request is its own async socket)
// and an overall limit per request. No response headers timeout: the far side may hold a
// request (a wait, the event long-poll) as long as the call asked.

export const CONNECT_TIMEOUT_MS =
  Number(process.env.OAR_PEER_CONNECT_MS) > 0 ? Number(process.env.OAR_PEER_CONNECT_MS) : 4_000;

/** What one answer may hold at least: requests stop at the relay's maxBodyMb, but answers
 * legitimately carry more (read_session returns up to 200 whole messages), so the cap on an
 * answer is maxBodyMb with this floor. It bounds memory against a peer (or whatever answers
 * at a URL being paired) that sends without end: a 600 MB answer once took a relay to 1.2 GB
 * and then crashed it (the text was too long for one string). */
export const MIN_ANSWER_MB = 16;

export function answerLimitBytes(maxBodyMb: number): number {
  return Math.max(maxBodyMb, MIN_ANSWER_MB) * 1024 * 1024;
}

export interface PeerResponse {
  status: number;
  /** The answer's JSON (null when it was none): parsed into its shape by the caller. */
  json: unknown;
  /** The version the other relay presented (header oar-version). */
  version: string | null;
}

/** Why a request did not get an answer: the relay is offline (or cut off), or the caller gave up. */
export class PeerUnreachable extends Error {
  constructor(
    message: string,
    readonly aborted = false,
    readonly staleSocket = false,
  ) {
    super(message);
  }
}

/** REMOTE_RELAY_OFFLINE because the other relay did not answer at all (not an answer that
 * was refused or malformed): the event link asks again soon (Pairing.call throws it). */
export class PeerOffline extends RelayError {
  constructor(message: string) {
    super("REMOTE_RELAY_OFFLINE", message);
  }
}

/** The other side answered more than one answer may hold: it was cut off and dropped. */
export class PeerAnswerTooLarge extends PeerUnreachable {
  constructor(readonly limit: number) {
    super(`its answer was larger than ${limit} bytes and was dropped`);
  }
}

export interface PeerRequestOptions {
  credential?: string;
  body?: unknown;
  version: string;
  name: string;
  timeoutMs: number;
  /** https: trust exactly the certificate with this SHA-256 fingerprint (a pinned pairing). */
  pin?: string | null;
  /** The most bytes an answer's body may have (answerLimitBytes). */
  maxBytes: number;
  signal?: AbortSignal;
}

const agents = {
  http: new http.Agent({ keepAlive: true, maxSockets: 64 }),
  https: new https.Agent({ keepAlive: true, maxSockets: 64 }),
};
/** One agent per pinned certificate: its sockets are the only ones that showed that certificate. */
const pinned = new Map<string, https.Agent>();
const pinnedFor = (pin: string) => {
  let a = pinned.get(pin);
  if (!a) pinned.set(pin, (a = pinnedAgent(pin, { keepAlive: true, maxSockets: 64 })));
  return a;
};

/** The other side presented another certificate than the pinned one: nothing was sent to it. */
export class PeerPinMismatch extends PeerUnreachable {}

export async function peerRequest(
  base: string,
  method: "GET" | "POST" | "DELETE",
  path: string,
  opts: PeerRequestOptions,
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
  opts: PeerRequestOptions,
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
      agent: url.protocol === "https:" ? (opts.pin ? pinnedFor(opts.pin) : agents.https) : agents.http,
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
    const connectTimer = setTimeout(
      () => fail(`no connection within ${Math.round(CONNECT_TIMEOUT_MS / 1000)} s`),
      CONNECT_TIMEOUT_MS,
    );
    const totalTimer = setTimeout(
      () => fail(`no answer within ${Math.round(opts.timeoutMs / 1000)} s`),
      opts.timeoutMs,
    );
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
      if (code === "CERT_PIN_MISMATCH")
        return finish(
          new PeerPinMismatch(`it presented another certificate than the one pinned at pairing (${e.message})`),
        );
      finish(
        new PeerUnreachable(
          code,
          false,
          req.reusedSocket && !gotResponse && (code === "ECONNRESET" || code === "EPIPE"),
        ),
      );
    });
    req.on("response", (res) => {
      gotResponse = true;
      // Counted while it arrives: past the limit the answer is cut off, never held whole.
      if (Number(res.headers["content-length"]) > opts.maxBytes) {
        res.destroy();
        req.destroy();
        return finish(new PeerAnswerTooLarge(opts.maxBytes));
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (c: Buffer) => {
        if (done) return;
        size += c.length;
        if (size > opts.maxBytes) {
          chunks.length = 0;
          res.destroy();
          req.destroy();
          return finish(new PeerAnswerTooLarge(opts.maxBytes));
        }
        chunks.push(c);
      });
      res.on("error", (e) => finish(new PeerUnreachable(e.message)));
      res.on("end", () => {
        if (done) return;
        // Nothing in a stream callback may throw: a fault here would end the relay.
        try {
          const text = Buffer.concat(chunks).toString("utf8");
          let json: unknown = null;
          try {
            json = text ? JSON.parse(text) : null;
          } catch {
            json = null;
          }
          const v = res.headers["oar-version"];
          finish(null, { status: res.statusCode ?? 0, json, version: typeof v === "string" ? v : null });
        } catch (e) {
          finish(new PeerUnreachable(`its answer could not be read (${(e as Error).message})`));
        }
      });
    });
    if (body) req.write(body);
    req.end();
  });
}
