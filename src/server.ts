import { Hono } from "hono";
import { serve, type ServerType } from "@hono/node-server";
import { existsSync, readFileSync, writeFileSync, chmodSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { newToken } from "./core/ids.ts";
import { Relay, type RelayOptions } from "./relay.ts";
import { ownerApi } from "./api/owner.ts";
import type { McpEndpoint } from "./mcp/endpoint.ts";
import { webUi } from "./web/ui.ts";
import { peerApi } from "./pairing/peer-routes.ts";
import { originGuard, type Listening } from "./api/origin-guard.ts";
import { MemoryTrim } from "./core/memory-trim.ts";

export interface StartOptions extends RelayOptions {
  port?: number;
  host?: string;
}

export interface Running {
  relay: Relay;
  server: ServerType;
  url: string;
  /** `keepWorkers`: a graceful stop that leaves the agents running (Relay.close). */
  close(opts?: { keepWorkers?: boolean }): Promise<void>;
}

/** DIR/owner-token: made on first start, mode 0600. */
export function ownerToken(dataDir: string): string {
  const file = join(dataDir, "owner-token");
  mkdirSync(dataDir, { recursive: true });
  if (existsSync(file)) {
    const t = readFileSync(file, "utf8").trim();
    if (t) return t;
  }
  const t = newToken();
  writeFileSync(file, t + "\n", { mode: 0o600 });
  chmodSync(file, 0o600);
  return t;
}

/** Loads a relay's MCP endpoint (once). */
const mcpEndpoints = new WeakMap<Relay, () => Promise<unknown>>();

export function buildApp(relay: Relay, listening: () => Listening | null = () => null): Hono {
  const app = new Hono();
  app.use("*", originGuard(listening));
  // The MCP endpoint (the MCP SDK, the tool's schema) loads after the relay is serving
  // (startRelay) or on the first /mcp request, whichever comes first: not part of the start.
  let mcp: Promise<McpEndpoint> | undefined;
  const endpoint = () =>
    (mcp ??= import("./mcp/endpoint.ts").then(
      (m) => new m.McpEndpoint(relay),
      (err) => {
        mcp = undefined;
        throw err;
      },
    ));
  mcpEndpoints.set(relay, endpoint);
  app.all("/mcp", async (c) => (await endpoint()).handle(c));
  app.route("/api", ownerApi(relay));
  app.route("/peer/v1", peerApi(relay));
  // A mounted app's notFound does not apply under its parent: unknown API routes answer here.
  app.all("/api/*", (c) => c.json({ ok: false, code: "REMOTE_RELAY_NOT_FOUND", error: `No route ${c.req.method} ${c.req.path}. Nothing was done.` }, 404));
  app.route("/", webUi(relay));
  return app;
}

export async function startRelay(opts: StartOptions = {}): Promise<Running> {
  const relay = new Relay(opts);
  relay.ownerToken = ownerToken(relay.dataDir);
  const host = opts.host ?? "127.0.0.1";
  let on: Listening | null = null;
  const app = buildApp(relay, () => on);
  // Requests and events are the relay's activity; quiet after them, it gives memory back.
  const trim = new MemoryTrim(relay.clock);
  relay.bus.on(() => trim.touch());
  const fetch: typeof app.fetch = (req, ...rest) => {
    trim.touch();
    return app.fetch(req, ...rest);
  };
  const server = await new Promise<ServerType>((resolve, reject) => {
    const s = serve({ fetch, port: opts.port ?? 7420, hostname: host }, () => resolve(s));
    s.once("error", reject);
  });
  const addr = server.address();
  const port = typeof addr === "object" && addr ? addr.port : opts.port ?? 7420;
  on = { host, port };
  const shownHost = host.includes(":") ? `[${host}]` : host;
  const url = `http://${shownHost}:${port}`;
  const local = host === "0.0.0.0" || host === "::" ? `http://127.0.0.1:${port}` : url;
  relay.mcpUrl = `${local}/mcp`;
  relay.baseUrl = local;
  await relay.start();
  trim.touch();
  // Loaded now that the relay serves, not at the first agent's call: that call would wait
  // for it, and from dist/ it is a chunk file, which a rebuild while the relay runs replaces.
  setImmediate(() => void mcpEndpoints.get(relay)?.().catch(() => {}));
  return {
    relay,
    server,
    url,
    close: (opts) =>
      new Promise<void>((resolve) => {
        trim.stop();
        relay.close(opts);
        server.close(() => resolve());
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  };
}
