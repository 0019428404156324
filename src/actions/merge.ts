import { z } from "zod";
import { defineAction } from "./define.ts";
import { RelayError } from "../core/errors.ts";
import { targetSession } from "./target.ts";
import { waitSecondsArg } from "./args.ts";
import { effectiveWait } from "./waiting.ts";
import { CLAIMS_THIS_RELAY_ONLY } from "./claim-repo.ts";
import type { ActionContext } from "./types.ts";

// merge (contract §10.1): a worktree session's branch into `into` through the repository's
// merge queue — one at a time, each on top of the last, tests run on the merged tree; a
// conflict or failing tests change nothing. Every outcome is ok:true with `status`.
const NOTHING = "Nothing was merged.";

export const merge = defineAction({
  name: "merge",
  since: "0.9.19",
  write: true,
  level: "full",
  relayOptional: true,
  thisRelayOnly: CLAIMS_THIS_RELAY_ONLY,
  nothing: NOTHING,
  args: {
    session: z.string().min(1).describe("The session (working in a worktree of its own) whose branch to merge."),
    into: z
      .string()
      .min(1)
      .max(250)
      .describe("The branch to merge into. Left out: the branch its worktree was made from."),
    test: z
      .string()
      .min(1)
      .max(4000)
      .describe(
        "Shell command run at the root of the merged tree before the branch moves; a failure refuses the merge. Left out: the relay's mergeTestCommand setting (default none).",
      ),
    wait_seconds: waitSecondsArg.describe(
      'How long to wait for the merge\'s outcome; after it, status "queued" with queuePosition (wait with merge_id waits on).',
    ),
  },
  required: { session: "the session whose branch to merge" },
  async handler(ctx, { session, into, test, wait_seconds }) {
    const { caller, worktrees, settings, approve } = ctx;
    const s = targetSession(ctx, "merge", session, { notArchived: false });
    const wt = worktrees.view(s.id);
    if (!wt)
      throw new RelayError(
        "REMOTE_RELAY_INVALID_INPUT",
        `Session "${s.title}" (${s.id}) does not work in a worktree of its own; merge takes a session started on a branch (create_session with branch, or the worktrees setting). ${NOTHING}`,
      );
    const command = test ?? settings.get().mergeTestCommand ?? null;
    const target = into ?? wt.base;
    // Sessions this conversation started (or itself) are its own to merge; any other needs the
    // owner's Allow once per conversation, as update_session does. ask/plan add the write card.
    // Asked once the queue's checks passed: a merge that would be refused shows no card.
    const asked = await worktrees.merges.ask({ session: s.id, into: into ?? null, test: command }, () =>
      approve({
        target: { id: s.id, title: s.title },
        details: [`Branch: ${wt.branch}`, `Into: ${target}`, `Test: ${command ?? "none"}`, `Repository: ${wt.repo}`],
        ...(s.via_session !== caller.id && s.id !== caller.id ? { once: "update_other" as const } : {}),
      }),
    );
    return mergeAnswer(ctx, asked.mergeId, wait_seconds, asked.note);
  },
});

/** Waits (on the relay clock) for the merge and answers as merge and wait do. */
export async function mergeAnswer(ctx: ActionContext, mergeId: string, waitSeconds: number | undefined, note?: string) {
  const wait = effectiveWait(ctx, waitSeconds);
  const a = await ctx.worktrees.merges.wait(mergeId, ctx.clock.now() + wait.seconds * 1000, ctx.signal);
  const notes = [note, wait.note].filter(Boolean).join(" ");
  const what =
    a.status === "merged"
      ? `merged as ${a.commit.slice(0, 12)}`
      : a.status === "queued"
        ? `queued (position ${a.queuePosition})`
        : a.status;
  return { summary: `merge → ${ctx.identity.name}: ${mergeId} ${what}`, ...a, ...(notes ? { note: notes } : {}) };
}
