import { Hono, type Context } from "hono";
import { z } from "zod";
import { RelayError } from "../core/errors.ts";
import type { ApiDeps } from "./deps.ts";
import { jsonBody } from "./http-errors.ts";
import { groupName } from "../groups/groups.ts";

const NameBody = z.object({ name: z.string().trim().min(1).max(100) }).strict();
const MemberBody = z.object({ session: z.string().min(1) }).strict();

/** The owner creates, renames and dissolves groups, and moves sessions by hand. A group the
 * owner made stays when empty (`empty: true`, the sidebar's "group · empty"). */
export function groupRoutes(d: Pick<ApiDeps, "groups" | "bus" | "sessions">): Hono {
  const app = new Hono();
  const { groups } = d;
  const members = (id: string) => groups.sessionsIn(id);
  const view = (id: string) => {
    const g = groups.row(id)!;
    const list = members(id);
    return {
      id: g.id,
      name: groupName(d, g),
      named: g.name !== null,
      createdBy: g.created_by,
      head: g.head_session,
      memberCount: list.length,
      members: list,
      empty: list.length === 0,
    };
  };
  const find = (id: string, tail: string) => {
    if (!groups.row(id))
      throw new RelayError("REMOTE_RELAY_NOT_FOUND", `No group ${id.slice(0, 80)} on this relay. ${tail}`);
    return id;
  };
  const body = async (c: Context, tail: string) => {
    const r = NameBody.safeParse(await jsonBody(c));
    if (!r.success)
      throw new RelayError("REMOTE_RELAY_INVALID_INPUT", `A group needs a name (1 to 100 characters). ${tail}`);
    return r.data;
  };
  const touched = (ids: string[]) => {
    for (const sessionId of ids) d.bus.emit({ type: "session.updated", sessionId });
  };

  app.get("/", (c) => {
    return c.json({ groups: groups.liveIds().map(view) });
  });
  app.get("/:id", (c) => c.json(view(find(c.req.param("id"), "Nothing was read."))));
  app.post("/", async (c) => {
    const { name } = await body(c, "Nothing was created.");
    const g = groups.create({ name, by: "owner" });
    return c.json(view(g.id), 201);
  });
  app.patch("/:id", async (c) => {
    const id = find(c.req.param("id"), "Nothing was changed.");
    const { name } = await body(c, "Nothing was changed.");
    groups.rename(id, name);
    touched(members(id).map((m) => m.id));
    return c.json(view(id));
  });
  app.delete("/:id", (c) => {
    const id = find(c.req.param("id"), "Nothing was dissolved.");
    const left = members(id).map((m) => m.id);
    groups.dissolve(id);
    touched(left);
    return c.json({ ok: true, id, dissolved: true });
  });

  // Moving a session by hand (e.g. after create_session's groupWarning).
  app.post("/:id/sessions", async (c) => {
    const id = find(c.req.param("id"), "Nothing was moved.");
    const b = MemberBody.safeParse(await jsonBody(c));
    if (!b.success)
      throw new RelayError("REMOTE_RELAY_INVALID_INPUT", "Name the session to move: { session }. Nothing was moved.");
    const s = d.sessions.get(b.data.session);
    if (!s)
      throw new RelayError(
        "REMOTE_RELAY_NOT_FOUND",
        `No session "${b.data.session.slice(0, 80)}" on this relay. Nothing was moved.`,
      );
    groups.moveByHand(s.id, id);
    touched([s.id]);
    return c.json(view(id));
  });
  app.delete("/:id/sessions/:session", (c) => {
    const id = find(c.req.param("id"), "Nothing was moved.");
    const s = d.sessions.get(c.req.param("session"));
    if (!s || s.group_id !== id)
      throw new RelayError(
        "REMOTE_RELAY_NOT_FOUND",
        `Session "${c.req.param("session").slice(0, 80)}" is not in group ${id}. Nothing was moved.`,
      );
    groups.moveByHand(s.id, null);
    touched([s.id]);
    return c.json(groups.row(id) ? view(id) : { ok: true, id, dissolved: true });
  });
  return app;
}
