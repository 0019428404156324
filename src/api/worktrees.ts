import { Hono } from "hono";
import { z } from "zod";
import { RelayError } from "../core/errors.ts";
import { issueWords } from "../core/issue-words.ts";
import type { Worktrees } from "../worktrees/worktrees.ts";
import { jsonBody } from "./http-errors.ts";

// Owner routes of contract §10.1: a worktree session's changes with their diff, and a merge
// asked by the owner (the page's Merge button), answered as relay_tool `merge` answers.

export interface WorktreeRouteDeps {
  worktrees: Worktrees;
  session(id: string): { id: string; title: string } | undefined;
  mergeTestCommand(): string | null;
  /** Longest wait per tool call, in seconds (the owner's merge waits at most as long). */
  longestWaitSeconds(): number;
  now(): number;
}

const MergeBody = z
  .object({
    into: z.string().min(1).max(250).optional(),
    test: z.string().min(1).max(4000).optional(),
    wait_seconds: z.number().min(0).optional(),
  })
  .strict();

export function worktreeRoutes(d: WorktreeRouteDeps): Hono {
  const app = new Hono();
  const worktreeSession = (id: string, nothing: string) => {
    const s = d.session(id);
    if (!s) throw new RelayError("REMOTE_RELAY_NOT_FOUND", `No session "${id.slice(0, 80)}" on this relay. ${nothing}`);
    if (!d.worktrees.view(s.id))
      throw new RelayError(
        "REMOTE_RELAY_INVALID_INPUT",
        `Session "${s.title}" (${s.id}) does not work in a worktree of its own. ${nothing}`,
      );
    return s;
  };

  app.get("/:id/changes", async (c) => {
    const s = worktreeSession(c.req.param("id"), "Nothing was read.");
    const changes = await d.worktrees.changes(s.id, { diff: true });
    if (!changes)
      throw new RelayError(
        "REMOTE_RELAY_NOT_FOUND",
        `The worktree of session "${s.title}" (${s.id}) was removed. Nothing was read.`,
      );
    return c.json(changes);
  });

  app.post("/:id/merge", async (c) => {
    const nothing = "Nothing was merged.";
    const s = worktreeSession(c.req.param("id"), nothing);
    const parsed = MergeBody.safeParse(await jsonBody(c));
    if (!parsed.success) {
      const words = issueWords(parsed.error.issues[0]);
      throw new RelayError("REMOTE_RELAY_INVALID_INPUT", `${words[0].toUpperCase()}${words.slice(1)}. ${nothing}`);
    }
    const b = parsed.data;
    const asked = await d.worktrees.merges.ask({
      session: s.id,
      into: b.into ?? null,
      test: b.test ?? d.mergeTestCommand(),
    });
    const wait = Math.min(b.wait_seconds ?? 0, d.longestWaitSeconds());
    const answer = await d.worktrees.merges.wait(asked.mergeId, d.now() + wait * 1000, c.req.raw.signal);
    return c.json({ ok: true, session: s.id, ...answer, ...(asked.note ? { note: asked.note } : {}) });
  });
  return app;
}
