import { z } from "zod";
import { defineAction } from "./define.ts";
import { targetSession } from "./target.ts";

export const stop = defineAction({
  name: "stop",
  since: "0.9.4",
  write: true,
  level: "full",
  nothing: "Nothing was stopped.",
  args: { session: z.string().min(1).describe("Session id whose running turn to stop.") },
  async handler(ctx, { session }) {
    const { identity, turns, approve } = ctx;
    const s = targetSession(ctx, "stop", session, { notSelf: true });
    await approve({ target: { id: s.id, title: s.title } });
    const stopRequested = turns.stop(s.id);
    return {
      summary: `stop → ${identity.name} session ${s.id}: ${stopRequested ? "stop requested" : "nothing was running"}`,
      session: s.id,
      stopRequested,
    };
  },
});
