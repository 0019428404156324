import { Hono } from "hono";
import { z } from "zod";
import { RelayError } from "../core/errors.ts";
import type { ApiDeps } from "./deps.ts";
import { Effort, Mode, type SessionRow } from "../sessions/types.ts";
import { pendingQuestions, taskSummary } from "../sessions/views.ts";
import { jsonBody } from "./http-errors.ts";
import { checkModel } from "../providers/model-check.ts";
import { agentStartView } from "../providers/agent-start.ts";
import { checkFolder, newSession, planNewSession } from "../actions/commands/new-session.ts";
import { cardView } from "../approvals/approvals.ts";
import { iso } from "../core/clock.ts";
import { toPlainLines } from "../tasks/plain-text.ts";
import { maskSecrets } from "../tasks/mask-secrets.ts";
import { OWNER_LIST_TAIL, ownerListQuery } from "./list-params.ts";
import { ownerMessageView, sessionHistory } from "./session-history.ts";
import { issueWords } from "../core/issue-words.ts";
import { mergeView } from "../worktrees/merge-store.ts";

const NewSessionBody = z
  .object({
    provider: z.string().min(1),
    model: z.string().optional(),
    cwd: z.string().optional(),
    repo: z.string().max(2048).optional(),
    branch: z.string().max(250).optional(),
    mode: Mode.optional(),
    effort: Effort.optional(),
    title: z.string().max(200).optional(),
    text: z.string().max(200_000).optional(),
    mayCreateSessions: z.boolean().optional(),
    /** contract §10.1: New session's "its own worktree" (ticked by the worktrees setting "all"). */
    worktree: z.boolean().optional(),
  })
  .strict();

const PatchBody = z
  .object({
    mayCreateSessions: z.boolean().optional(),
    mode: Mode.optional(),
    model: z.string().min(1).optional(),
    effort: Effort.optional(),
    title: z.string().min(1).max(200).optional(),
    cwd: z.string().min(1).optional(),
  })
  .strict();

function parse<T>(schema: z.ZodType<T>, body: unknown, tail: string): T {
  const r = schema.safeParse(body);
  if (!r.success) {
    const words = issueWords(r.error.issues[0]);
    throw new RelayError("REMOTE_RELAY_INVALID_INPUT", `${words[0].toUpperCase()}${words.slice(1)}. ${tail}`);
  }
  return r.data;
}

export function sessionDetail(d: ApiDeps, s: SessionRow) {
  const running = d.sessions.activeTurns(s.id).find((t) => t.status === "running");
  const live = running ? d.turns.inFlight(running.id) : null;
  return {
    ...d.sessionReads.entry(s),
    group: d.groups.members(s),
    messages: d.sessions.messages(s.id).map(ownerMessageView),
    inFlight: live ? { turnId: running!.id, text: live.text, startedAt: iso(live.startedAt) } : null,
    tasks: d.tasks.tasksOf(s.id).map(taskSummary),
    pendingQuestions: pendingQuestions(d, s.id),
    // Pending cards and the latest decided ones, each with its status: the conversation
    // shows a card's outcome (allowed, denied, expired — also across a restart).
    cards: d.approvals.forSession(s.id).map(cardView),
    agentStart: agentStartView(s),
    ...sessionHistory(d, s.id),
    ...d.sessionReads.outcomes([s.id]).get(s.id),
    ...worktreeDetail(d, s.id),
  };
}

/** A worktree session's worktree, its overlaps now and its repository's merge queue (the page). */
function worktreeDetail(d: Pick<ApiDeps, "worktrees" | "sessions">, id: string) {
  const worktree = d.worktrees.view(id);
  if (!worktree) return {};
  const overlaps = d.worktrees.overlaps.currentFor(id).map((o) => {
    const other = o.a === id ? o.b : o.a;
    return other === "main"
      ? { mainFolder: o.repo, paths: o.paths }
      : { session: other, title: d.sessions.get(other)?.title ?? null, paths: o.paths };
  });
  const merges = d.worktrees.merges.store.ofSession(id, 5).map(mergeView);
  return { worktree, overlaps, mergeQueue: d.worktrees.merges.queue(worktree.repo), merges };
}

/** Owner routes for sessions (contract §3). */
export function sessionRoutes(d: ApiDeps): Hono {
  const app = new Hono();
  const reads = d.sessionReads;
  const find = (id: string): SessionRow => {
    const s = d.sessions.get(id);
    if (!s)
      throw new RelayError(
        "REMOTE_RELAY_NOT_FOUND",
        `No session "${id.slice(0, 80)}" on this relay. Nothing was done.`,
      );
    return s;
  };

  app.get("/", (c) => {
    const page = reads.page(
      ownerListQuery(d.groups, (k) => c.req.query(k)),
      OWNER_LIST_TAIL,
    );
    const lc = reads.listContext(page.rows);
    // The owner's list adds each entry's last outcome and a preview line (list-outcome.ts).
    const more = reads.outcomes(page.rows.map((s) => s.id));
    return c.json({
      sessions: page.rows.map((s) => ({ ...reads.entry(s, lc), ...more.get(s.id) })),
      total: page.total,
      nextCursor: page.nextCursor,
    });
  });

  app.post("/", async (c) => {
    const { text, title, mode, mayCreateSessions, ...ask } = parse(
      NewSessionBody,
      await jsonBody(c),
      "Nothing was created.",
    );
    const s = await newSession(d, await planNewSession(d, ask, { owner: true }), { title, mode, mayCreateSessions });
    if (text) d.ownerMessage(s.id, text);
    return c.json(sessionDetail(d, d.sessions.get(s.id)!), 201);
  });

  app.get("/:id", (c) => c.json(sessionDetail(d, find(c.req.param("id")))));

  app.patch("/:id", async (c) => {
    const s = find(c.req.param("id"));
    const b = parse(PatchBody, await jsonBody(c), "Nothing was changed.");
    const model = b.model
      ? checkModel(s.provider, b.model, { relayName: d.identity.name, action: "update_session" }).model
      : undefined;
    if (b.cwd && s.provider === "claude-cloud")
      throw new RelayError(
        "REMOTE_RELAY_INVALID_INPUT",
        `Claude Cloud sessions work on a clone of their repository (${s.repo ?? "their repo"}); cwd cannot change. Nothing was changed.`,
      );
    const cwd = b.cwd ? checkFolder(b.cwd, "Nothing was changed.") : undefined;
    d.transaction(() => {
      d.sessions.update(s.id, {
        ...(b.mayCreateSessions !== undefined ? { may_create_sessions: b.mayCreateSessions ? 1 : 0 } : {}),
        ...(b.mode ? { mode: b.mode } : {}),
        ...(model ? { model } : {}),
        ...(b.effort ? { effort: b.effort } : {}),
        ...(b.title ? { title: b.title } : {}),
        ...(cwd ? { cwd } : {}),
      });
    });
    if (cwd && cwd !== s.cwd && d.sessions.state(s.id) === "idle") d.workers.stop(s.id);
    d.bus.emit({ type: "session.updated", sessionId: s.id });
    return c.json(sessionDetail(d, find(s.id)));
  });

  app.post("/:id/messages", async (c) => {
    const s = find(c.req.param("id"));
    const b = parse(
      z.object({ text: z.string().min(1).max(200_000) }).strict(),
      await jsonBody(c),
      "Nothing was sent.",
    );
    if (s.archived_at)
      throw new RelayError("REMOTE_RELAY_ARCHIVED", `Session "${s.title}" is archived. Nothing was sent.`);
    const { messageId } = d.ownerMessage(s.id, b.text);
    return c.json({ ok: true, message_id: messageId, session: s.id }, 201);
  });

  app.post("/:id/stop", (c) => {
    const s = find(c.req.param("id"));
    return c.json({ ok: true, session: s.id, stopRequested: d.turns.stop(s.id) });
  });

  // A worktree session's folder goes only when nothing uncommitted is in it: `note` says so.
  app.post("/:id/archive", async (c) => {
    const s = find(c.req.param("id"));
    d.archiveSession(s.id);
    const note = await d.worktreeEnded(s.id);
    return c.json({ ok: true, session: s.id, archived: true, ...(note ? { note } : {}) });
  });

  app.delete("/:id", async (c) => {
    const s = find(c.req.param("id"));
    d.deleteSession(s.id);
    const note = await d.worktreeEnded(s.id);
    return c.json({ ok: true, session: s.id, deleted: true, ...(note ? { note } : {}) });
  });

  app.post("/:id/kill", (c) => {
    const s = find(c.req.param("id"));
    const running = d.sessions.activeTurns(s.id).find((t) => t.status === "running");
    if (running) d.turns.end(running.id, "error", "The owner killed the session's agent process (Kill session).");
    const killed = d.workers.kill(s.id);
    return c.json({ ok: true, session: s.id, killed });
  });

  app.post("/:id/compact", (c) => {
    const next = d.compactSession(find(c.req.param("id")).id);
    return c.json(sessionDetail(d, next), 201);
  });

  app.get("/:id/mcp", (c) => c.json(d.mcpEntry(find(c.req.param("id")))));

  app.get("/:id/tasks/:taskId/output", (c) => {
    const s = find(c.req.param("id"));
    const t = d.tasks.task(s.id, c.req.param("taskId"));
    if (!t)
      throw new RelayError(
        "REMOTE_RELAY_NOT_FOUND",
        `No task ${c.req.param("taskId").slice(0, 80)} in session ${s.id}. Nothing was read.`,
      );
    const n = Math.min(Math.max(Number(c.req.query("lines") ?? 200) || 200, 1), 5000);
    const lines = toPlainLines(maskSecrets(d.tasks.readOutput(t).text, d.secrets()));
    return c.json({ task: taskSummary(t), lines: lines.slice(-n), truncated: lines.length > n });
  });

  return app;
}
