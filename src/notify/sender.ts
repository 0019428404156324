import http from "node:http";
import https from "node:https";
import { trustedCAs } from "./trust.ts";

// The one way notifications leave the relay: a fetch-like POST over http(s) that trusts the
// system's authorities, follows no redirect, gives up after a timeout and reads at most a
// little of the answer (a receiver that answers without end costs nothing).

export interface OutgoingRequest {
  method: "POST";
  headers: Record<string, string | number>;
  body: Buffer | string;
  timeoutMs?: number;
}

export interface SenderResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type Sender = (url: string, req: OutgoingRequest) => Promise<SenderResponse>;

const DEFAULT_TIMEOUT_MS = 10_000;
const MAX_ANSWER = 16 * 1024;

export interface SenderOptions {
  /** Extra authorities (tests); the system's and NODE_EXTRA_CA_CERTS are always there. */
  ca?: string[];
  env?: NodeJS.ProcessEnv;
}

export function httpSender(opts: SenderOptions = {}): Sender {
  let agent: https.Agent | null = null;
  const httpAgent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  // Made at the first https request: reading the system bundle costs a few milliseconds.
  const httpsAgent = () =>
    (agent ??= new https.Agent({ keepAlive: true, maxSockets: 16, ca: [...trustedCAs(opts.env), ...(opts.ca ?? [])] }));
  return (url, req) =>
    new Promise((resolve, reject) => {
      const u = new URL(url);
      const secure = u.protocol === "https:";
      if (!secure && u.protocol !== "http:") return reject(new Error(`not an http(s) address (${u.protocol})`));
      const headers: Record<string, string | number> = { ...req.headers };
      // Credentials in the address (an ntfy topic behind a password) go as Basic auth.
      if (u.username || u.password) {
        headers.Authorization = `Basic ${Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString("base64")}`;
      }
      const body = typeof req.body === "string" ? Buffer.from(req.body) : req.body;
      headers["Content-Length"] = body.length;
      const request = (secure ? https : http).request(
        {
          protocol: u.protocol,
          hostname: u.hostname.replace(/^\[|\]$/g, ""),
          port: u.port || undefined,
          path: `${u.pathname}${u.search}`,
          method: req.method,
          headers,
          agent: secure ? httpsAgent() : httpAgent,
          timeout: req.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on("data", (c: Buffer) => {
            if (size >= MAX_ANSWER) return;
            chunks.push(c);
            size += c.length;
            if (size >= MAX_ANSWER) res.destroy();
          });
          const done = () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              body: Buffer.concat(chunks).toString("utf8").slice(0, MAX_ANSWER),
            });
          res.on("end", done);
          res.on("close", done);
          res.on("error", done);
        },
      );
      const overall = setTimeout(
        () => request.destroy(new Error("no answer in time")),
        req.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      );
      overall.unref();
      request.on("timeout", () => request.destroy(new Error("no answer in time")));
      request.on("error", (e) => reject(e));
      request.on("close", () => clearTimeout(overall));
      request.end(body);
    });
}
