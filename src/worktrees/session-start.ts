// Whether a new session works in a worktree (contract §10.1), checked before any card so a
// refusal changes nothing, and the worktree made once the session has its id. create_session
// and POST /api/sessions both start sessions through these two functions.
import { RelayError } from "../core/errors.ts";
import type { WorktreeLifecycle, WorktreePlan } from "./lifecycle.ts";
import type { WorktreeView } from "./worktree-store.ts";

export type WorktreesSetting = "off" | "agents" | "all";

/** Providers that work in a folder of this relay's disk take `branch` (contract §10.1). */
export const worksInFolder = (provider: string): boolean => provider !== "claude-cloud" && provider !== "openai-image";

export interface NewSessionWorktree {
  folder: string;
  /** `branch` as the call gave it: a worktree on that branch, whatever the setting says. */
  branch?: string;
  /** An agent starts the session (create_session); else the owner does. */
  byAgent: boolean;
  /** The owner's New session ticked (true) or unticked (false) "its own worktree". */
  wanted?: boolean;
  setting: WorktreesSetting;
  nothing: string;
}

/** The plan for the new session's worktree, or null when it works in `folder` itself. Refuses
 * (INVALID_INPUT, with the reason) only what was asked for by name: a branch, or the owner's
 * tick; the setting alone gives a worktree where the folder is in a repository that can have one. */
export async function planSessionWorktree(
  lc: Pick<WorktreeLifecycle, "plan">,
  o: NewSessionWorktree,
): Promise<WorktreePlan | null> {
  if (o.branch) return lc.plan(o.folder, o.branch, o.nothing);
  if (o.wanted === true) return lc.plan(o.folder, null, o.nothing);
  const bySetting = o.setting === "all" || (o.setting === "agents" && o.byAgent);
  if (!bySetting || o.wanted === false) return null;
  try {
    return await lc.plan(o.folder, null, o.nothing);
  } catch (e) {
    if (e instanceof RelayError) return null;
    throw e;
  }
}

/** Makes the planned worktree for the session just created; when git refuses, `discard`
 * takes the session away again and the refusal is the answer. */
export async function makeSessionWorktree(
  lc: Pick<WorktreeLifecycle, "create">,
  plan: WorktreePlan,
  session: { id: string; title: string },
  discard: () => void,
  nothing: string,
): Promise<WorktreeView> {
  try {
    return await lc.create(plan, session, nothing);
  } catch (e) {
    discard();
    throw e;
  }
}

/** The approval card's line for it. */
export const worktreeCardLine = (p: WorktreePlan): string =>
  `Worktree: ${p.branch ? `branch ${p.branch}${p.exists ? "" : " (new)"}` : "a new branch"} of ${p.repo}, from ${p.base}`;
