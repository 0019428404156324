import { Hono } from "hono";
import { iso } from "../core/clock.ts";
import { RelayError } from "../core/errors.ts";
import type { Clock } from "../core/clock.ts";
import { jsonBody } from "./http-errors.ts";
import { TOKEN_TTL_MS, type ClientRow, type RelayRow } from "../pairing/store.ts";
import type { Pairing } from "../pairing/pairing.ts";

// Owner routes for paired relays (contract §3): tokens for others to pair with this relay,
// the relays this one paired with (Agents may), and who paired with it; either end unpairs.

export function relayView(r: RelayRow) {
  return {
    name: r.name,
    url: r.url,
    peerName: r.peer_name,
    direction: "outgoing" as const,
    agentsMay: r.agents_may,
    online: !!r.online,
    version: r.version,
    lastSeenAt: iso(r.last_seen_at),
    createdAt: iso(r.created_at),
  };
}

export function clientView(c: ClientRow) {
  return {
    name: c.name,
    direction: "incoming" as const,
    label: c.label,
    version: c.version,
    lastSeenAt: iso(c.last_seen_at),
    createdAt: iso(c.created_at),
  };
}

/** What the routes use. */
export interface PairingRoutesDeps {
  pairing: Pick<Pairing, "store" | "pair" | "setAgentsMay" | "unpair">;
  clock: Pick<Clock, "now">;
  /** Served over https: its certificate's fingerprint, which a pairing token carries (contract §10.3). */
  tlsFingerprint: () => string | null;
}

export function pairingRoutes({ pairing, clock, tlsFingerprint }: PairingRoutesDeps): Hono {
  const app = new Hono();

  app.post("/pairing-tokens", async (c) => {
    const b: Record<string, unknown> = await jsonBody(c).catch(() => ({}));
    const label = typeof b?.label === "string" && b.label.trim() ? b.label.trim().slice(0, 200) : null;
    // When it stops working, so the page can say how long it may be used (once).
    const token = pairing.store.newToken(label, tlsFingerprint());
    return c.json(
      {
        token,
        expiresAt: iso(clock.now() + TOKEN_TTL_MS),
        ...(tlsFingerprint() ? { fingerprint: tlsFingerprint() } : {}),
      },
      201,
    );
  });

  app.get("/relays", (c) =>
    c.json({
      relays: [...pairing.store.relays().map(relayView), ...pairing.store.clients().map(clientView)],
    }),
  );

  app.post("/relays", async (c) => {
    const row = await pairing.pair(await jsonBody(c));
    return c.json(relayView(row), 201);
  });

  app.patch("/relays/:name", async (c) => {
    const b = await jsonBody(c);
    const keys = Object.keys(b ?? {});
    if (keys.some((k) => k !== "agentsMay") || !keys.length)
      throw new RelayError(
        "REMOTE_RELAY_INVALID_INPUT",
        "Only agentsMay can be changed: off, read, prompt or full. Nothing was changed.",
      );
    return c.json(relayView(pairing.setAgentsMay(c.req.param("name"), b.agentsMay)));
  });

  app.delete("/relays/:name", async (c) => {
    const r = await pairing.unpair(c.req.param("name"));
    return c.json({ ok: true, ...r });
  });

  return app;
}
