import { z } from "zod";
import type { ActionDef } from "./types.ts";
import { targetSession } from "./target.ts";

export const archive: ActionDef = {
  name: "archive",
  since: "0.9.4",
  write: true,
  level: "full",
  args: { session: z.string().min(1).describe("Session id to archive.") },
  async handler(ctx, args) {
    const s = targetSession(ctx, "archive", args.session, { notSelf: true });
    if (s.archived_at) return { summary: `archive → ${ctx.relay.name} session ${s.id}: already archived`, session: s.id, archived: true };
    await ctx.approve({ target: { id: s.id, title: s.title } });
    ctx.relay.archiveSession(s.id);
    // A worktree session's folder goes only when nothing uncommitted is in it (contract §10.1).
    const note = await ctx.worktreeEnded(s.id);
    return { summary: `archive → ${ctx.relay.name} session ${s.id}: archived`, session: s.id, archived: true, ...(note ? { note } : {}) };
  },
};
