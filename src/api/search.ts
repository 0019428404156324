import { Hono } from "hono";
import { iso } from "../core/clock.ts";
import { RelayError } from "../core/errors.ts";
import { matchQuery } from "../sessions/search-index.ts";
import type { SessionReads } from "../sessions/reads.ts";

// GET /api/search?q=…&limit&cursor (contract §10.5): full-text search over messages and
// questions, newest first, a page at a time. A hit's snippet marks the matched words with
// <mark>…</mark> (the page draws them as text, never as markup).

export interface SearchDeps {
  sessionReads: Pick<SessionReads, "search">;
}

const NOTHING = "Nothing was searched.";
const bad = (text: string) => new RelayError("REMOTE_RELAY_INVALID_INPUT", `${text} ${NOTHING}`);

const encode = (at: number, id: string) => Buffer.from(`${at}:${id}`).toString("base64url");
function decode(cursor: string): { at: number; id: string } {
  const m = /^(\d{1,15}):([\w-]{1,80})$/.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  if (cursor.length > 200 || !m) throw bad("cursor is not a nextCursor this relay gave.");
  return { at: Number(m[1]), id: m[2] };
}

export function searchRoutes(d: SearchDeps): Hono {
  const app = new Hono();
  app.get("/", (c) => {
    const q = c.req.query("q") ?? "";
    if (!q.trim()) throw bad("Give the words to look for: ?q=….");
    if (q.length > 200) throw bad("q is at most 200 characters.");
    const rawLimit = c.req.query("limit");
    const limit = rawLimit === undefined || rawLimit === "" ? 20 : Number(rawLimit);
    if (!/^\d+$/.test(rawLimit || "20") || limit < 1 || limit > 100)
      throw bad(`limit must be a whole number from 1 to 100 (got ${JSON.stringify(rawLimit).slice(0, 40)}).`);
    const cursor = c.req.query("cursor");
    const after = cursor ? decode(cursor) : null;
    const match = matchQuery(q);
    if (!match) return c.json({ hits: [], nextCursor: null });
    const rows = d.sessionReads.search(match, limit + 1, after);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return c.json({
      hits: page.map((r) => ({
        session: r.session_id,
        message: r.id,
        snippet: r.snippet,
        createdAt: iso(r.created_at),
        kind: r.kind,
        role: r.role,
        title: r.title,
        ...(r.archived ? { archived: true } : {}),
      })),
      nextCursor: rows.length > limit && last ? encode(last.created_at, last.id) : null,
    });
  });
  return app;
}
