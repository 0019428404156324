import { Hono } from "hono";
import { readFileSync, readdirSync } from "node:fs";
import type { Relay } from "../relay.ts";
import { CATALOG } from "../providers/catalog.ts";
import { packageFile } from "../core/package-paths.ts";

// The web UI: one static page plus its plain ES modules and stylesheet (no build step).
// The page reads the owner token from the URL fragment and talks to the owner API and its
// SSE stream; nothing served here needs or holds the token.

// From the package root: the compiled bundle serves the same files as the sources.
const dir = (p: string) => packageFile(`src/web/${p}`);

/** The provider table for the New session form: static data only, no availability (that
 * depends on the owner's settings and is told by the relay when a create is refused). */
const catalogJson = JSON.stringify(Object.values(CATALOG).map((p) => ({ id: p.id, name: p.name, defaultModel: p.defaultModel, models: p.models ?? [], efforts: p.efforts })))
  // Inside <script>, "<" could close the element; JSON allows it escaped.
  .replace(/</g, "\\u003c");
const PAGE = readFileSync(dir("./index.html"), "utf8").replace("__CATALOG__", () => catalogJson);

const TYPES: Record<string, string> = { js: "text/javascript; charset=utf-8", css: "text/css; charset=utf-8" };
/** Every asset is read once at start: a fixed list, so no request can name another file. */
const ASSETS = new Map<string, { body: string; type: string }>();
for (const name of readdirSync(dir("./app/"))) {
  const ext = name.split(".").pop() ?? "";
  if (TYPES[ext]) ASSETS.set(name, { body: readFileSync(dir(`./app/${name}`), "utf8"), type: TYPES[ext] });
}

const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const SECURITY = {
  "content-security-policy": CSP,
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};

export function webUi(_relay: Relay): Hono {
  const app = new Hono();
  // Headers set per route: a "*" middleware here would also match paths of the other
  // apps mounted on the same server.
  app.get("/", (c) => c.html(PAGE, 200, { ...SECURITY, "cache-control": "no-store" }));
  app.get("/app/:name", (c) => {
    const a = ASSETS.get(c.req.param("name"));
    if (!a) return c.text("Not found", 404, SECURITY);
    return c.body(a.body, 200, { ...SECURITY, "content-type": a.type, "cache-control": "no-cache" });
  });
  return app;
}
