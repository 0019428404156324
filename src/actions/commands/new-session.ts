import { existsSync, statSync } from "node:fs";
import { isAbsolute } from "node:path";
import { RelayError } from "../../core/errors.ts";
import type { Effort, Mode, SessionRow } from "../../sessions/types.ts";
import { getProvider, providerAvailability, providerList, type ProviderInfo } from "../../providers/catalog.ts";
import { checkModel, type ModelCheck } from "../../providers/model-check.ts";
import { cloneCloud, planCloud, type CloudPlan, type Staged } from "../../cloud/workspace.ts";
import type { ActionServices } from "../services.ts";
import { makeSessionWorktree, planSessionWorktree, worksInFolder } from "../../worktrees/session-start.ts";
import type { WorktreePlan } from "../../worktrees/lifecycle.ts";

// Starting a session, for an agent (relay_tool create_session) and for the owner (POST
// /api/sessions): first the plan — provider, availability, model, effort, folder or Claude
// Cloud clone, a worktree of its own (contract §10.1) — checked before any card; then the
// session, written in one transaction, and its worktree made once it has its id.

const NOTHING = "Nothing was created.";

export interface NewSessionDeps
  extends Pick<ActionServices, "identity" | "settings" | "folders" | "probes" | "bus" | "transaction" | "clock"> {
  worktrees: { lifecycle: Pick<ActionServices["worktrees"]["lifecycle"], "plan" | "create"> };
  sessions: Pick<ActionServices["sessions"], "create" | "update" | "get">;
}

/** What the call asked for; left out, the starter's defaults apply. */
export interface NewSessionAsk {
  provider: string;
  model?: string;
  effort?: Effort;
  cwd?: string;
  repo?: string;
  branch?: string;
  /** The owner's New session ticked (true) or unticked (false) "its own worktree". */
  worktree?: boolean;
}

/** Who starts the session. An agent: its own conversation's model, effort and folder are the
 * defaults, effort must be one the provider offers, OpenAI Image cannot be started, and a
 * provider that is not available is refused naming the relay, with the provider's code
 * (`remoteCode`). The owner: the relay's default folder, and the refusal says "this relay". */
export type Starter = { agent: SessionRow } | { owner: true };

export interface NewSessionPlan {
  provider: ProviderInfo;
  model: ModelCheck;
  effort: Effort | null;
  /** The folder it works in; "" for Claude Cloud, whose clone gets one. */
  cwd: string;
  cloud: CloudPlan | null;
  /** Its worktree (branch, or the worktrees setting), made once the session has its id. */
  worktree: WorktreePlan | null;
}

export function checkFolder(cwd: string, tail: string): string {
  if (!isAbsolute(cwd))
    throw new RelayError("REMOTE_RELAY_INVALID_INPUT", `cwd "${cwd}" is not an absolute path. ${tail}`);
  if (!existsSync(cwd))
    throw new RelayError("REMOTE_RELAY_INVALID_INPUT", `cwd "${cwd}" does not exist on this relay. ${tail}`);
  if (!statSync(cwd).isDirectory())
    throw new RelayError("REMOTE_RELAY_INVALID_INPUT", `cwd "${cwd}" is not a directory. ${tail}`);
  return cwd;
}

/** Checks everything a new session needs, in the order refusals come, and writes nothing. */
export async function planNewSession(d: NewSessionDeps, ask: NewSessionAsk, by: Starter): Promise<NewSessionPlan> {
  const agent = "agent" in by ? by.agent : null;
  const provider = getProvider(ask.provider);
  if (!provider)
    throw new RelayError(
      "REMOTE_RELAY_INVALID_INPUT",
      `Unknown provider "${ask.provider}". Providers: ${providerList()
        .map((p) => p.id)
        .join(", ")}. ${NOTHING}`,
    );
  if (agent && provider.id === "openai-image")
    throw new RelayError(
      "REMOTE_RELAY_UNSUPPORTED",
      `OpenAI Image conversations cannot be started with create_session. ${NOTHING}`,
    );
  await d.probes.firstChecks([provider.id]);
  const avail = providerAvailability(provider.id, { settings: d.settings.get() as unknown as Record<string, unknown> });
  if (!avail.available) {
    const where = agent ? `relay "${d.identity.name}"` : "this relay";
    throw new RelayError(
      "REMOTE_RELAY_PROVIDER_UNAVAILABLE",
      `${provider.name} is not available on ${where}: ${avail.reason}. ${NOTHING}`,
      agent && avail.code ? { remoteCode: avail.code } : {},
    );
  }
  const inherited = agent && provider.id === agent.provider ? agent.model : undefined;
  const model = checkModel(provider.id, ask.model ?? inherited, {
    relayName: d.identity.name,
    action: "create_session",
  });
  const effort = ask.effort ?? provider.efforts.find((e) => e === agent?.effort) ?? null;
  if (agent && effort && !provider.efforts.includes(effort)) {
    throw new RelayError(
      "REMOTE_RELAY_INVALID_INPUT",
      `effort "${effort}" is not offered by ${provider.name}: ${provider.efforts.join(", ")}. ${NOTHING}`,
    );
  }
  // Claude Cloud works on a clone of repo at branch (contract §9.2), never in a folder.
  const cloud = provider.id === "claude-cloud";
  if (cloud && ask.cwd)
    throw new RelayError(
      "REMOTE_RELAY_INVALID_INPUT",
      `Claude Cloud sessions take repo and branch instead of cwd: the relay clones the branch into a workspace of its own. ${NOTHING}`,
    );
  if (!cloud && ask.repo)
    throw new RelayError(
      "REMOTE_RELAY_INVALID_INPUT",
      `repo is for Claude Cloud sessions; ${provider.name} works in a folder (cwd), on a branch of its repository with branch. ${NOTHING}`,
    );
  if (!cloud && ask.branch && !worksInFolder(provider.id))
    throw new RelayError(
      "REMOTE_RELAY_INVALID_INPUT",
      `branch is for providers that work in a folder of this relay; ${provider.name} does not. ${NOTHING}`,
    );
  // The repository is asked before any card: a bad address or branch is refused at once.
  if (cloud)
    return { provider, model, effort, cwd: "", cloud: await planCloud(ask.repo, ask.branch, NOTHING), worktree: null };
  const cwd = checkFolder(ask.cwd ?? agent?.cwd ?? d.identity.defaultCwd, NOTHING);
  const worktree = await planSessionWorktree(d.worktrees.lifecycle, {
    folder: cwd,
    branch: ask.branch,
    byAgent: !!agent,
    wanted: ask.worktree,
    setting: d.settings.get().worktrees,
    nothing: NOTHING,
  });
  return { provider, model, effort, cwd, cloud: null, worktree };
}

export interface NewSessionOptions {
  title?: string;
  mode?: Mode;
  /** The conversation that starts it (an agent's). */
  viaSession?: string;
  mayCreateSessions?: boolean;
  /** Runs in the transaction that writes the session, before a clone is placed: a refusal
   * there creates nothing (create_session's group). */
  within?: (s: SessionRow) => void;
}

/** Writes the planned session: clones first (Claude Cloud), then the row, `within` and the
 * clone's place in one transaction; a clone that was not placed is removed. */
export async function newSession(d: NewSessionDeps, plan: NewSessionPlan, o: NewSessionOptions): Promise<SessionRow> {
  const staged: Staged | null = plan.cloud
    ? await cloneCloud(d.identity.dataDir, plan.cloud, NOTHING, d.identity.name)
    : null;
  let id: string;
  try {
    id = d.transaction(() => {
      const s = d.sessions.create({
        provider: plan.provider.id,
        model: plan.model.model,
        effort: plan.effort,
        mode: o.mode,
        cwd: staged?.dir ?? plan.cwd,
        title: o.title,
        repo: plan.cloud?.repo.display ?? null,
        branch: plan.cloud?.branch ?? null,
        viaSession: o.viaSession,
        mayCreateSessions: o.mayCreateSessions,
      });
      o.within?.(s);
      // Last: a refusal above leaves the clone in staging, where discard() removes it.
      if (staged) d.sessions.update(s.id, { cwd: staged.place(s.id) });
      return s.id;
    });
  } finally {
    staged?.discard();
  }
  if (!staged) d.folders.note(plan.cwd);
  if (plan.worktree) {
    // git refusing now (the branch taken meanwhile) takes the session away again: its refusal is the answer.
    const discard = () => {
      d.sessions.update(id, { deleted_at: d.clock.now() });
      d.bus.emit({ type: "session.deleted", sessionId: id });
    };
    const made = await makeSessionWorktree(
      d.worktrees.lifecycle,
      plan.worktree,
      { id, title: d.sessions.get(id)!.title },
      discard,
      NOTHING,
    );
    d.sessions.update(id, { cwd: made.path, branch: made.branch });
  }
  d.bus.emit({ type: "session.updated", sessionId: id });
  return d.sessions.get(id)!;
}
