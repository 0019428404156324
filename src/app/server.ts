import { Hono } from "hono";
import { serve, type ServerType } from "@hono/node-server";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { ownerApi } from "../api/owner.ts";
import type { McpEndpoint } from "../mcp/endpoint.ts";
import { webUi } from "../web/ui.ts";
import { peerApi } from "../peer/routes.ts";
import { originGuard, type Listening } from "../api/origin-guard.ts";
import { lockDataDir, type FolderLock } from "../ops/folder-lock.ts";
import { askHealth, describeHolder, localUrl, removePidFile, runningRelay, writePidFile } from "../ops/pid-file.ts";
import { MemoryTrim } from "../core/memory-trim.ts";
import { buildRelay, type BuildOptions } from "./build.ts";
import type { RelayApp } from "./relay-app.ts";
import { cardActRoute } from "../api/push.ts";
import { cardView } from "../approvals/card-store.ts";
import { createServer as createHttpsServer } from "node:https";

export interface StartOptions extends BuildOptions {
  port?: number;
  host?: string;
}

export interface Running {
  relay: RelayApp;
  server: ServerType;
  url: string;
  /** `keepWorkers`: a graceful stop that leaves the agents running (RelayApp.close). */
  close(opts?: { keepWorkers?: boolean }): Promise<void>;
}

/** Loads a relay's MCP endpoint (once). */
const mcpEndpoints = new WeakMap<RelayApp, () => Promise<unknown>>();

export function buildApp(relay: RelayApp, listening: () => Listening | null = () => null): Hono {
  const app = new Hono();
  app.use("*", originGuard(listening));
  // The MCP endpoint (the MCP SDK, the tool's schema) loads after the relay is serving
  // (startRelay) or on the first /mcp request, whichever comes first: not part of the start.
  const { services } = relay;
  let mcp: Promise<McpEndpoint> | undefined;
  const endpoint = () =>
    (mcp ??= import("../mcp/endpoint.ts").then(
      (m) => new m.McpEndpoint({ services, secretMask: services.secretMask, toolListings: services.toolListings }),
      (err) => {
        mcp = undefined;
        throw err;
      },
    ));
  mcpEndpoints.set(relay, endpoint);
  app.all("/mcp", async (c) => (await endpoint()).handle(c));
  // A notification's Allow/Deny: its action token stands for the owner token (contract §10.3).
  app.route(
    "/api",
    cardActRoute({
      transaction: services.transaction,
      clock: services.clock,
      tokens: relay.parts.notify.tokens,
      // A budget card's options are its own (raise / allow_once / stop: budgets/holds.ts).
      decide: (id, d) =>
        cardView(
          services.approvals.get(id)?.kind === "budget"
            ? services.budgets.decide(id, typeof d === "object" ? d : { decision: d })
            : services.approvals.decide(id, d),
        ),
    }),
  );
  app.route("/api", ownerApi(services));
  app.route("/peer/v1", peerApi({ services, bus: services.bus }));
  // A mounted app's notFound does not apply under its parent: unknown API routes answer here.
  app.all("/api/*", (c) =>
    c.json(
      { ok: false, code: "REMOTE_RELAY_NOT_FOUND", error: `No route ${c.req.method} ${c.req.path}. Nothing was done.` },
      404,
    ),
  );
  app.route("/", webUi(services));
  return app;
}

export async function startRelay(opts: StartOptions = {}): Promise<Running> {
  const dataDir = resolve(opts.dataDir ?? join(homedir(), ".oar"));
  // Before anything opens the store: one relay per data folder (ops/folder-lock.ts).
  const lock = lockDataDir(dataDir);
  if (!lock) throw new Error(await folderTaken(dataDir));
  try {
    return await serveRelay({ ...opts, dataDir }, lock);
  } catch (err) {
    lock.release();
    throw err;
  }
}

async function serveRelay(opts: StartOptions & { dataDir: string }, lock: FolderLock): Promise<Running> {
  const host = opts.host ?? "127.0.0.1";
  // The port is taken before the relay opens its store: a port in use changes nothing.
  let app: Hono | null = null;
  // Requests and events are the relay's activity; quiet after them, it gives memory back.
  let trim: MemoryTrim | undefined;
  const server = await listen(host, opts.port ?? 7420, opts.tls, (req, env) => {
    trim?.touch();
    return app ? app.fetch(req, env) : new Response("starting", { status: 503 });
  });
  try {
    const addr = server.address();
    const port = typeof addr === "object" && addr ? addr.port : (opts.port ?? 7420);
    const on: Listening = { host, port };
    // No await from here until the app is set: no request is answered 503 in between.
    const relay = buildRelay(opts);
    app = buildApp(relay, () => on);
    const memory = (trim = new MemoryTrim(relay.parts.clock));
    relay.parts.bus.on(() => memory.touch());
    writePidFile(opts.dataDir, { host, port, ...(opts.tls ? { tls: true } : {}) });
    const shownHost = host.includes(":") ? `[${host}]` : host;
    const scheme = opts.tls ? "https" : "http";
    const url = `${scheme}://${shownHost}:${port}`;
    const local = localUrl(host, port, !!opts.tls);
    relay.parts.address.listening(local);
    await relay.start();
    memory.touch();
    // Loaded now that the relay serves, not at the first agent's call: that call would wait
    // for it, and from dist/ it is a chunk file, which a rebuild while the relay runs replaces.
    setImmediate(
      () =>
        void mcpEndpoints
          .get(relay)?.()
          .catch(() => {}),
    );
    return {
      relay,
      server,
      url,
      close: (opts) =>
        new Promise<void>((resolve) => {
          removePidFile(relay.services.identity.dataDir);
          memory.stop();
          relay.close(opts);
          lock.release();
          server.close(() => resolve());
          (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
        }),
    };
  } catch (err) {
    removePidFile(opts.dataDir);
    server.close();
    throw err;
  }
}

function listen(
  host: string,
  port: number,
  tls: StartOptions["tls"],
  fetch: (req: Request, env: unknown) => Response | Promise<Response>,
): Promise<ServerType> {
  return new Promise<ServerType>((resolve, reject) => {
    const options = tls
      ? {
          fetch,
          port,
          hostname: host,
          createServer: createHttpsServer,
          serverOptions: { cert: tls.cert, key: tls.key },
        }
      : { fetch, port, hostname: host };
    const s = serve(options, () => resolve(s));
    s.once("error", (err: NodeJS.ErrnoException) => {
      if (err.code !== "EADDRINUSE") return reject(err);
      portTaken(host, port).then((words) => reject(Object.assign(new Error(words), { code: err.code })));
    });
  });
}

/** Why a start on this data folder is refused: who holds it, and how to open that relay. */
async function folderTaken(dataDir: string): Promise<string> {
  const holder = await runningRelay(dataDir);
  if (!holder?.url)
    return `The data folder ${dataDir} is held by ${holder ? describeHolder(holder) : "another oar process"}. Nothing was started.`;
  return `A relay runs on the data folder ${dataDir} already: ${describeHolder(holder)}. Open it: \`oar url --data ${dataDir}\` prints its web UI link. Nothing was started.`;
}

/** Why the port cannot be had: an OAR relay (of another data folder) says its name. */
async function portTaken(host: string, port: number): Promise<string> {
  const url = localUrl(host, port);
  const other = await askHealth(url);
  if (!other)
    return `Port ${port} on ${host} is in use (EADDRINUSE) by another program. Stop it, or start the relay with --port <another port>. Nothing was started.`;
  return `Port ${port} on ${host} is in use (EADDRINUSE) by OAR ${other.version} relay "${other.name}", which serves another data folder. Open it at ${url}/ (\`oar url --data <its data folder>\` prints its link with the owner token), or start this relay with --port <another port>. Nothing was started.`;
}
