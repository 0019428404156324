import { Hono, type Context } from "hono";
import { z } from "zod";
import { RelayError } from "../core/errors.ts";
import { newId } from "../core/ids.ts";
import type { Relay } from "../relay.ts";
import { jsonBody } from "./http-errors.ts";
import { groupName, groupRow } from "../groups/groups.ts";

const NameBody = z.object({ name: z.string().trim().min(1).max(100) }).strict();

/** The owner creates, renames and dissolves groups; a group the owner made stays when empty. */
export function groupRoutes(relay: Relay): Hono {
  const app = new Hono();
  const view = (id: string) => {
    const g = groupRow(relay, id)!;
    const members = relay.db.prepare("SELECT id, title FROM sessions WHERE group_id = ? AND deleted_at IS NULL").all(id) as { id: string; title: string }[];
    return { id: g.id, name: groupName(relay, g), createdBy: g.created_by, head: g.head_session, memberCount: members.length, members, empty: members.length === 0 };
  };
  const body = async (c: Context, tail: string) => {
    const r = NameBody.safeParse(await jsonBody(c));
    if (!r.success) throw new RelayError("REMOTE_RELAY_INVALID_INPUT", `A group needs a name (1 to 100 characters). ${tail}`);
    return r.data;
  };

  app.get("/", (c) => {
    const ids = relay.db.prepare("SELECT id FROM groups WHERE dissolved_at IS NULL ORDER BY created_at").all() as { id: string }[];
    return c.json({ groups: ids.map((r) => view(r.id)) });
  });
  app.post("/", async (c) => {
    const { name } = await body(c, "Nothing was created.");
    const id = newId("grp");
    relay.db.prepare("INSERT INTO groups (id, name, head_session, created_by, created_at) VALUES (?, ?, NULL, 'owner', ?)").run(id, name, relay.clock.now());
    return c.json(view(id), 201);
  });
  app.patch("/:id", async (c) => {
    const id = c.req.param("id");
    if (!groupRow(relay, id)) throw new RelayError("REMOTE_RELAY_NOT_FOUND", `No group ${id.slice(0, 80)}. Nothing was changed.`);
    const { name } = await body(c, "Nothing was changed.");
    relay.db.prepare("UPDATE groups SET name = ? WHERE id = ?").run(name, id);
    return c.json(view(id));
  });
  app.delete("/:id", (c) => {
    const id = c.req.param("id");
    if (!groupRow(relay, id)) throw new RelayError("REMOTE_RELAY_NOT_FOUND", `No group ${id.slice(0, 80)}. Nothing was dissolved.`);
    relay.db.transaction(() => {
      relay.db.prepare("UPDATE groups SET dissolved_at = ? WHERE id = ?").run(relay.clock.now(), id);
      relay.db.prepare("UPDATE sessions SET group_id = NULL WHERE group_id = ?").run(id);
    })();
    return c.json({ ok: true, id, dissolved: true });
  });
  return app;
}
