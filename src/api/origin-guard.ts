import type { Context, Next } from "hono";

// DNS rebinding and cross-site requests: a web page the owner visits can make the browser
// send requests to 127.0.0.1:7420. The Host header tells a rebound name apart (it carries the
// attacker's domain), and the Origin header a foreign page (the MCP spec requires servers to
// validate it). Requests from programs (agents, curl, paired relays) send no Origin.

export interface Listening {
  /** The address the relay listens on (--host). */
  host: string;
  port: number;
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);
const WILDCARD = new Set(["0.0.0.0", "::", "[::]"]);

/** Extra names the relay is reached by (a reverse proxy's host), comma-separated. */
const EXTRA = (process.env.OAR_ALLOWED_HOSTS ?? "")
  .split(",")
  .map((h) => h.trim().toLowerCase())
  .filter(Boolean);

function splitHost(value: string): { name: string; port: string } {
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(value.trim().toLowerCase());
  return m ? { name: m[1], port: m[2] ?? "" } : { name: value.toLowerCase(), port: "" };
}

export function hostAllowed(value: string, on: Listening): boolean {
  if (EXTRA.includes(value.toLowerCase())) return true;
  const { name, port } = splitHost(value);
  if (EXTRA.includes(name)) return true;
  if (WILDCARD.has(on.host)) return true; // listening everywhere: reached by names we cannot know
  if (port !== String(on.port)) return false;
  const bound = on.host.includes(":") && !on.host.startsWith("[") ? `[${on.host}]` : on.host;
  return LOOPBACK.has(name) || name === bound.toLowerCase();
}

export function originGuard(listening: () => Listening | null) {
  return async (c: Context, next: Next) => {
    const on = listening();
    if (!on || c.req.path.startsWith("/peer/")) return next();
    const host = c.req.header("host");
    if (host && !hostAllowed(host, on)) {
      return c.json(
        {
          ok: false,
          code: "REMOTE_RELAY_FORBIDDEN",
          error: `This relay does not answer to the host name "${host.slice(0, 100)}" (set OAR_ALLOWED_HOSTS for a proxy's name). Nothing was done.`,
        },
        403,
      );
    }
    const origin = c.req.header("origin");
    if (origin !== undefined) {
      let same = false;
      try {
        const u = new URL(origin);
        same =
          (u.protocol === "http:" || u.protocol === "https:") && !!host && u.host.toLowerCase() === host.toLowerCase();
      } catch {}
      if (!same) {
        return c.json(
          {
            ok: false,
            code: "REMOTE_RELAY_FORBIDDEN",
            error: `Requests from the web origin "${origin.slice(0, 100)}" are refused: only the relay's own page may call it. Nothing was done.`,
          },
          403,
        );
      }
    }
    return next();
  };
}
