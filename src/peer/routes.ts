import { Hono, type Context } from "hono";
import { timingSafeEqual } from "node:crypto";
import type { Bus } from "../core/bus.ts";
import { RelayError } from "../core/errors.ts";
import { CallBody } from "../pairing/peer-protocol.ts";
import { hashSecret, type ClientRow } from "../pairing/store.ts";
import type { ActionServices } from "../actions/services.ts";
import { ClientGone, HttpRefusal, readBodyText, tooLarge } from "../api/body.ts";
import { executeRemote } from "./call.ts";
import { answerClientQuestion, clientQuestions } from "./questions.ts";

// The peer API (/peer/v1), served to relays that paired with this one. Every answer carries
// this relay's version (header oar-version) and every request the caller's. Authenticated by
// the pairing credential (only its hash is kept here); /pair by a one-time pairing token.

type Env = { Variables: { client: ClientRow } };

/** What the peer API uses (app/server.ts hands it over). */
export interface PeerDeps {
  /** The action path's services: a call from a paired relay runs through the dispatcher. */
  services: ActionServices;
  bus: Pick<Bus, "emit">;
}

export function peerApi({ services, bus }: PeerDeps): Hono<Env> {
  const app = new Hono<Env>();
  const { identity, settings, clock, pairing } = services;
  app.use("*", async (c, next) => {
    await next();
    c.header("oar-version", identity.version);
  });
  app.onError((err, c) => {
    // A body over maxBodyMb, or a peer that hung up mid-body: coded, and no stack in the log.
    if (err instanceof HttpRefusal) return c.json(err.toJSON(), err.status);
    if (err instanceof ClientGone)
      return c.json({ ok: false, code: "REMOTE_RELAY_INVALID_INPUT", error: err.message }, 400);
    console.error("[peer] request failed:", err);
    return c.json(
      { ok: false, code: "REMOTE_RELAY_BUSY", error: "The relay could not carry out the peer request. Try again." },
      500,
    );
  });

  const maxBody = () => settings.get().maxBodyMb * 1024 * 1024;
  // Every route refuses a body declared over maxBodyMb (413) before anything else; the routes
  // that read one also count it while it arrives (peerJson). The others never read it.
  app.use("*", async (c, next) => {
    if (Number(c.req.header("content-length")) > maxBody()) throw tooLarge(maxBody());
    await next();
  });

  /** The JSON body (null when it is not JSON), read as a stream within maxBodyMb. */
  const peerJson = async (c: Context): Promise<unknown> => {
    const text = await readBodyText(c.req.raw, maxBody());
    try {
      return JSON.parse(text);
    } catch {
      return null;
    }
  };

  app.post("/pair", async (c) => {
    const b = (await peerJson(c)) as { token?: unknown; name?: unknown } | null;
    const name = typeof b?.name === "string" ? b.name.trim().slice(0, 100) : "";
    const token = typeof b?.token === "string" ? b.token : "";
    const used = token && name ? pairing.store.useToken(token) : null;
    if (!used)
      return c.json(
        { ok: false, code: "REMOTE_RELAY_AUTH", error: "Unknown, used or expired pairing token. Nothing was paired." },
        401,
      );
    const credential = pairing.store.addClient(name, used.label, c.req.header("oar-version") ?? "");
    bus.emit({ type: "settings.updated" });
    return c.json({ ok: true, name: identity.name, version: identity.version, credential });
  });

  app.use("*", async (c, next) => {
    const given = /^Bearer\s+(.+)$/i.exec(c.req.header("authorization") ?? "")?.[1]?.trim() ?? "";
    const client = given ? pairing.store.clientByCredential(given) : undefined;
    // The lookup is by hash; compare again in constant time for good measure.
    if (!client || !timingSafeEqual(Buffer.from(client.credential_hash), Buffer.from(hashSecret(given)))) {
      return c.json(
        {
          ok: false,
          code: "REMOTE_RELAY_AUTH",
          error: `Relay "${identity.name}" does not know this credential: the pairing was removed or never made. Nothing was done.`,
        },
        401,
      );
    }
    const version = c.req.header("oar-version") ?? null;
    // Written when something changed, else at most every 30 s (not once per call).
    if (version !== client.version || !client.last_seen_at || clock.now() - client.last_seen_at > 30_000)
      pairing.store.clientSeen(client.id, version);
    c.set("client", client);
    await next();
  });

  app.get("/hello", (c) => c.json({ ok: true, name: identity.name, version: identity.version }));

  app.post("/call", async (c) => {
    const parsed = CallBody.safeParse(await peerJson(c));
    if (!parsed.success) {
      return c.json({
        result: {
          ok: false,
          code: "REMOTE_RELAY_INVALID_INPUT",
          error: `The peer call is malformed (${parsed.error.issues[0]?.path.join(".")}: ${parsed.error.issues[0]?.message}). Nothing was done.`,
        },
      });
    }
    const answer = await executeRemote(services, c.get("client"), parsed.data, signalOf(c));
    return c.json(answer);
  });

  app.get("/questions", (c) => c.json({ questions: clientQuestions(services, c.get("client")) }));
  app.post("/questions/:id", async (c) => {
    const b = ((await peerJson(c)) ?? {}) as Record<string, unknown>;
    const a = {
      ...(typeof b.choice === "string" ? { choice: b.choice } : {}),
      ...(typeof b.answer === "string" ? { answer: b.answer.slice(0, 100_000) } : {}),
      ...(b.dismiss === true ? { dismiss: true } : {}),
    };
    try {
      return c.json(answerClientQuestion(services, c.get("client"), c.req.param("id"), a));
    } catch (err) {
      if (err instanceof RelayError) return c.json(err.toJSON());
      throw err;
    }
  });

  app.post("/unpair", (c) => {
    pairing.endIncoming(c.get("client").name, c.get("client").id);
    bus.emit({ type: "settings.updated" });
    return c.json({ ok: true });
  });

  app.get("/events", async (c) => {
    const after = Number(c.req.query("after") ?? 0);
    const wait = Math.min(Math.max(Number(c.req.query("wait") ?? 0), 0), 30);
    // Everything here is the pairing's own, not its name's (issue 18).
    const client = c.get("client").id;
    const subs = (c.req.query("subs") ?? "").split(",").filter(Boolean);
    const ended = (c.req.query("ended") ?? "").split(",").filter(Boolean).slice(0, 200);
    if (ended.length) pairing.endUnsubscribed(client, ended);
    const moved = (c.req.query("moved") ?? "")
      .split(",")
      .map((p) => p.split(">"))
      .filter((p) => p.length === 2 && p[0] && p[1])
      .slice(0, 50);
    if (moved.length)
      pairing.applyMoves(
        client,
        moved.map(([from, to]) => ({ from, to })),
      );
    // spend=1: the caller's relay counts turns' spend from here (older relays leave it out).
    const spend = c.req.query("spend") === "1";
    const out = await pairing.outbox.take(client, Number.isFinite(after) ? after : 0, wait * 1000, signalOf(c), spend);
    return c.json({ ...out, subs: pairing.subStates(client, subs) });
  });

  return app;
}

function signalOf(c: Context): AbortSignal {
  return c.req.raw.signal ?? new AbortController().signal;
}
