import { Hono } from "hono";
import { z } from "zod";
import { RelayError } from "../core/errors.ts";
import type { Relay } from "../relay.ts";
import { Effort, Mode, type SessionRow } from "../sessions/types.ts";
import { listContext, pendingQuestions, sessionEntry, taskSummary } from "../sessions/views.ts";
import { jsonBody } from "./http-errors.ts";
import { checkModel } from "../providers/model-check.ts";
import { agentStartView } from "../providers/agent-start.ts";
import { checkFolder, newSession, newSessionDeps, planNewSession } from "../actions/commands/new-session.ts";
import { cardView } from "../approvals/approvals.ts";
import { groupMembers } from "../groups/members.ts";
import { iso } from "../core/clock.ts";
import { toPlainLines } from "../tasks/plain-text.ts";
import { maskSecrets } from "../tasks/mask-secrets.ts";
import { compactSession } from "../sessions/compact.ts";
import { listPage } from "../sessions/list-query.ts";
import { OWNER_LIST_TAIL, ownerListQuery } from "./list-params.ts";
import { ownerMessageView, sessionHistory } from "./session-history.ts";
import { issueWords } from "../core/issue-words.ts";
import { outcomes } from "../sessions/list-outcome.ts";

const NewSessionBody = z.object({
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
}).strict();

const PatchBody = z.object({
  mayCreateSessions: z.boolean().optional(),
  mode: Mode.optional(),
  model: z.string().min(1).optional(),
  effort: Effort.optional(),
  title: z.string().min(1).max(200).optional(),
  cwd: z.string().min(1).optional(),
}).strict();

function parse<T>(schema: z.ZodType<T>, body: unknown, tail: string): T {
  const r = schema.safeParse(body);
  if (!r.success) {
    const words = issueWords(r.error.issues[0]);
    throw new RelayError("REMOTE_RELAY_INVALID_INPUT", `${words[0].toUpperCase()}${words.slice(1)}. ${tail}`);
  }
  return r.data;
}

export function sessionDetail(relay: Relay, s: SessionRow) {
  const running = relay.sessions.activeTurns(s.id).find((t) => t.status === "running");
  const live = running ? relay.turns.inFlight(running.id) : null;
  return {
    ...sessionEntry(relay, s),
    group: groupMembers(relay, s),
    messages: relay.sessions.messages(s.id).map(ownerMessageView),
    inFlight: live ? { turnId: running!.id, text: live.text, startedAt: iso(live.startedAt) } : null,
    tasks: relay.sessions.tasksOf(s.id).map(taskSummary),
    pendingQuestions: pendingQuestions(relay, s.id),
    // Pending cards and the latest decided ones, each with its status: the conversation
    // shows a card's outcome (allowed, denied, expired — also across a restart).
    cards: relay.approvals.forSession(s.id).map(cardView),
    agentStart: agentStartView(s),
    ...sessionHistory(relay, s.id),
    ...outcomes(relay.db, [s.id]).get(s.id),
  };
}

/** Owner routes for sessions (contract §3). */
export function sessionRoutes(relay: Relay): Hono {
  const app = new Hono();
  const find = (id: string): SessionRow => {
    const s = relay.sessions.get(id);
    if (!s) throw new RelayError("REMOTE_RELAY_NOT_FOUND", `No session "${id.slice(0, 80)}" on this relay. Nothing was done.`);
    return s;
  };

  app.get("/", (c) => {
    const page = listPage(relay.db, ownerListQuery(relay, (k) => c.req.query(k)), OWNER_LIST_TAIL);
    const lc = listContext(relay, page.rows);
    // The owner's list adds each entry's last outcome and a preview line (list-outcome.ts).
    const more = outcomes(relay.db, page.rows.map((s) => s.id));
    return c.json({ sessions: page.rows.map((s) => ({ ...sessionEntry(relay, s, lc), ...more.get(s.id) })), total: page.total, nextCursor: page.nextCursor });
  });

  app.post("/", async (c) => {
    const { text, title, mode, mayCreateSessions, ...ask } = parse(NewSessionBody, await jsonBody(c), "Nothing was created.");
    const d = newSessionDeps(relay);
    const s = await newSession(d, await planNewSession(d, ask, { owner: true }), { title, mode, mayCreateSessions });
    if (text) relay.ownerMessage(s.id, text);
    return c.json(sessionDetail(relay, relay.sessions.get(s.id)!), 201);
  });

  app.get("/:id", (c) => c.json(sessionDetail(relay, find(c.req.param("id")))));

  app.patch("/:id", async (c) => {
    const s = find(c.req.param("id"));
    const b = parse(PatchBody, await jsonBody(c), "Nothing was changed.");
    const model = b.model ? checkModel(s.provider, b.model, { relayName: relay.name, action: "update_session" }).model : undefined;
    if (b.cwd && s.provider === "claude-cloud") throw new RelayError("REMOTE_RELAY_INVALID_INPUT", `Claude Cloud sessions work on a clone of their repository (${s.repo ?? "their repo"}); cwd cannot change. Nothing was changed.`);
    const cwd = b.cwd ? checkFolder(b.cwd, "Nothing was changed.") : undefined;
    relay.db.transaction(() => {
      relay.sessions.update(s.id, {
        ...(b.mayCreateSessions !== undefined ? { may_create_sessions: b.mayCreateSessions ? 1 : 0 } : {}),
        ...(b.mode ? { mode: b.mode } : {}),
        ...(model ? { model } : {}),
        ...(b.effort ? { effort: b.effort } : {}),
        ...(b.title ? { title: b.title } : {}),
        ...(cwd ? { cwd } : {}),
      });
    })();
    if (cwd && cwd !== s.cwd && relay.sessions.state(s.id) === "idle") relay.workers.stop(s.id);
    relay.bus.emit({ type: "session.updated", sessionId: s.id });
    return c.json(sessionDetail(relay, find(s.id)));
  });

  app.post("/:id/messages", async (c) => {
    const s = find(c.req.param("id"));
    const b = parse(z.object({ text: z.string().min(1).max(200_000) }).strict(), await jsonBody(c), "Nothing was sent.");
    if (s.archived_at) throw new RelayError("REMOTE_RELAY_ARCHIVED", `Session "${s.title}" is archived. Nothing was sent.`);
    const { messageId } = relay.ownerMessage(s.id, b.text);
    return c.json({ ok: true, message_id: messageId, session: s.id }, 201);
  });

  app.post("/:id/stop", (c) => {
    const s = find(c.req.param("id"));
    return c.json({ ok: true, session: s.id, stopRequested: relay.turns.stop(s.id) });
  });

  app.post("/:id/archive", (c) => {
    const s = find(c.req.param("id"));
    relay.archiveSession(s.id);
    return c.json({ ok: true, session: s.id, archived: true });
  });

  app.delete("/:id", (c) => {
    const s = find(c.req.param("id"));
    relay.deleteSession(s.id);
    return c.json({ ok: true, session: s.id, deleted: true });
  });

  app.post("/:id/kill", (c) => {
    const s = find(c.req.param("id"));
    const running = relay.sessions.activeTurns(s.id).find((t) => t.status === "running");
    if (running) relay.turns.end(running.id, "error", "The owner killed the session's agent process (Kill session).");
    const killed = relay.workers.kill(s.id);
    return c.json({ ok: true, session: s.id, killed });
  });

  app.post("/:id/compact", (c) => {
    const next = compactSession(relay, find(c.req.param("id")).id);
    return c.json(sessionDetail(relay, next), 201);
  });

  app.get("/:id/mcp", (c) => c.json(relay.mcpEntry(find(c.req.param("id")))));

  app.get("/:id/tasks/:taskId/output", (c) => {
    const s = find(c.req.param("id"));
    const t = relay.sessions.task(s.id, c.req.param("taskId"));
    if (!t) throw new RelayError("REMOTE_RELAY_NOT_FOUND", `No task ${c.req.param("taskId").slice(0, 80)} in session ${s.id}. Nothing was read.`);
    const n = Math.min(Math.max(Number(c.req.query("lines") ?? 200) || 200, 1), 5000);
    const lines = toPlainLines(maskSecrets(relay.tasks.readOutput(t).text, relay.secrets()));
    return c.json({ task: taskSummary(t), lines: lines.slice(-n), truncated: lines.length > n });
  });

  return app;
}
