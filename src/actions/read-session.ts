import { z } from "zod";
import { defineAction } from "./define.ts";
import { targetSession } from "./target.ts";
import { messageView, pendingQuestions } from "../sessions/views.ts";
import { iso } from "../core/clock.ts";
import { taskHealth } from "../tasks/health.ts";
import { activitySummary } from "../providers/activity.ts";
import { fromJson } from "../store/db.ts";
import { agentStartView } from "../providers/agent-start.ts";

const LAST_DEFAULT = 10;
const LAST_MAX = 200;

export const readSession = defineAction({
  name: "read_session",
  since: "0.9.4",
  write: false,
  level: "read",
  nothing: "Nothing was done.",
  args: {
    session: z.string().min(1).describe("Session id to read."),
    last: z
      .number()
      .int()
      .min(1)
      .describe(`How many of the latest messages to return (default ${LAST_DEFAULT}, at most ${LAST_MAX}).`),
  },
  async handler(ctx, { session, last }) {
    const { identity, clock, sessions, sessionReads, turns, groups } = ctx;
    const s = targetSession(ctx, "read_session", session);
    const entry = sessionReads.entry(s);
    // A worktree session (contract §10.1): its worktree and what it changed against base.
    const worktree = ctx.worktrees.view(s.id);
    const changes = worktree ? await ctx.worktrees.changes(s.id).catch(() => null) : null;
    // More than the cap is not an error: the agent gets the most there is, and is told.
    const asked = last ?? LAST_DEFAULT;
    // An agent's reply shows what it did in one compact line per tool (🛰️ for relay_tool).
    const messages = sessions.messages(s.id, Math.min(asked, LAST_MAX)).map((m) => {
      const activity =
        m.role === "agent" && m.meta_json
          ? activitySummary(fromJson<{ activity?: unknown }>(m.meta_json, {}).activity)
          : [];
      return { ...messageView(m), ...(activity.length ? { activity } : {}) };
    });
    const running = sessions.activeTurns(s.id).find((t) => t.status === "running");
    const live = running ? turns.inFlight(running.id) : null;
    const tasks = ctx.tasks
      .tasksOf(s.id)
      .filter((t) => t.status === "running" || (t.ended_at ?? 0) > clock.now() - 3_600_000);
    return {
      summary: `read_session → ${identity.name} session ${s.id}: ${entry.state}, ${messages.length} of ${s.message_count} messages`,
      session: { ...entry, group: groups.members(s), agentStart: agentStartView(s) },
      state: entry.state,
      messages,
      inFlight: live ? { text: live.text, startedAt: iso(live.startedAt) } : null,
      pendingQuestions: pendingQuestions(ctx, s.id),
      tasks: tasks.map((t) => taskHealth(ctx, t)),
      group: groups.members(s),
      ...(worktree ? { worktree } : {}),
      ...(changes ? { changes } : {}),
      ...(asked > LAST_MAX ? { note: `last is at most ${LAST_MAX}; the latest ${LAST_MAX} messages are shown.` } : {}),
    };
  },
});
