import { z } from "zod";
import type { ActionDef } from "./types.ts";
import { targetSession } from "./target.ts";

export const stop: ActionDef = {
  name: "stop",
  since: "0.9.4",
  write: true,
  level: "full",
  args: { session: z.string().min(1).describe("Session id whose running turn to stop.") },
  async handler(ctx, args) {
    const s = targetSession(ctx, "stop", args.session, { notSelf: true });
    await ctx.approve({ target: { id: s.id, title: s.title } });
    const stopRequested = ctx.relay.turns.stop(s.id);
    return {
      summary: `stop → ${ctx.relay.name} session ${s.id}: ${stopRequested ? "stop requested" : "nothing was running"}`,
      session: s.id,
      stopRequested,
    };
  },
};
