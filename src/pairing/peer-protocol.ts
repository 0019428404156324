import { z } from "zod";
import { Mode } from "../sessions/types.ts";

// The peer API's shapes (/peer/v1, ARCHITECTURE.md "Paired relays"). Every request carries
// `oar-version` (the caller's version, as it presents itself) and every answer too.

export const CallerIdentity = z.object({
  session: z.string().min(1).max(200),
  title: z.string().max(500),
  model: z.string().max(200),
  provider: z.string().max(100),
  effort: z.string().max(50).nullable(),
  mode: Mode,
  cwd: z.string().max(4096),
  /** The one-level rule (seed §7.3) travels with the caller. */
  startedByAgent: z.boolean(),
  mayCreateSessions: z.boolean(),
  /** The owner's last message in the conversation: a newer one resets the loop count there. */
  loopEpoch: z.number().int().min(0),
  /** Subscriptions the conversation holds elsewhere (its own relay, other paired relays):
   * they count toward its 20 here too (contract §6). Older relays leave it out. */
  heldElsewhere: z.number().int().min(0).max(1000).optional(),
});

export const CallBody = z.object({
  action: z.string().min(1).max(100),
  args: z.record(z.string(), z.unknown()),
  caller: CallerIdentity,
  origin: z.object({ relays: z.array(z.string().max(200)).max(20), ownerUnlocked: z.array(z.string().max(300)).max(200) }),
  /** Relays unlocked in the calling conversation (owner or agent), as the caller knows them. */
  unlocked: z.array(z.string().max(300)).max(200),
  approved: z.boolean().optional(),
});
export type CallBody = z.infer<typeof CallBody>;
