import { z } from "zod";
import { defineAction } from "./define.ts";
import { targetSession } from "./target.ts";
import { archiveSession } from "./commands/archive-session.ts";

export const archive = defineAction({
  name: "archive",
  since: "0.9.4",
  write: true,
  level: "full",
  nothing: "Nothing was archived.",
  args: { session: z.string().min(1).describe("Session id to archive.") },
  async handler(ctx, { session }) {
    const { identity, approve } = ctx;
    const s = targetSession(ctx, "archive", session, { notSelf: true });
    if (s.archived_at)
      return { summary: `archive → ${identity.name} session ${s.id}: already archived`, session: s.id, archived: true };
    await approve({ target: { id: s.id, title: s.title } });
    archiveSession(ctx, s.id);
    // A worktree session's folder goes only when nothing uncommitted is in it (contract §10.1).
    const note = await ctx.worktreeEnded(s.id);
    return {
      summary: `archive → ${identity.name} session ${s.id}: archived`,
      session: s.id,
      archived: true,
      ...(note ? { note } : {}),
    };
  },
});
