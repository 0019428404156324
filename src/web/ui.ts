import { Hono } from "hono";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Relay } from "../relay.ts";

const PAGE = readFileSync(fileURLToPath(new URL("./index.html", import.meta.url)), "utf8");

/** The web UI: one static page that reads the owner token from the URL fragment and talks
 * to the owner API and its SSE stream. */
export function webUi(_relay: Relay): Hono {
  const app = new Hono();
  app.get("/", (c) => {
    c.header("content-security-policy", "default-src 'self'; style-src 'self' 'unsafe-inline'; script-src 'self' 'unsafe-inline'");
    c.header("x-frame-options", "DENY");
    return c.html(PAGE);
  });
  return app;
}
