import { z } from "zod";
import { existsSync, statSync } from "node:fs";
import { isAbsolute } from "node:path";
import type { ActionDef } from "./types.ts";
import { RelayError } from "../core/errors.ts";
import { agentPromptText, checkWorkingLimit, fromInfo, promptKind } from "./target.ts";
import { effortArg, modeArg, modelArg, textArg, waitSecondsArg } from "./args.ts";
import { statusSummary, waitForTurn } from "./waiting.ts";
import { checkModel, modelNotes } from "../providers/model-check.ts";
import { CATALOG, getProvider, providerAvailability, providerList } from "../providers/catalog.ts";
import type { Mode, SessionRow } from "../sessions/types.ts";
import { groupOf, joinStarterGroup } from "../groups/groups.ts";
import { findGroupForCreate, recheckGroup } from "../groups/find.ts";
import { withGroupWarning } from "../groups/warning.ts";
import { cloneCloud, planCloud, type Staged } from "../cloud/workspace.ts";
import { makeSessionWorktree, planSessionWorktree, worktreeCardLine, worksInFolder } from "../worktrees/session-start.ts";

const NOTHING = "Nothing was created.";

export function checkFolder(cwd: string, tail: string): string {
  if (!isAbsolute(cwd)) throw new RelayError("REMOTE_RELAY_INVALID_INPUT", `cwd "${cwd}" is not an absolute path. ${tail}`);
  if (!existsSync(cwd)) throw new RelayError("REMOTE_RELAY_INVALID_INPUT", `cwd "${cwd}" does not exist on this relay. ${tail}`);
  if (!statSync(cwd).isDirectory()) throw new RelayError("REMOTE_RELAY_INVALID_INPUT", `cwd "${cwd}" is not a directory. ${tail}`);
  return cwd;
}

export const createSession: ActionDef = {
  name: "create_session",
  since: "0.9.4",
  write: true,
  level: "full",
  strictArgs: true,
  args: {
    text: textArg,
    provider: z.string().min(1).describe(`Provider id: ${Object.keys(CATALOG).join(", ")}. Left out: your own session's provider.`),
    model: modelArg,
    cwd: z.string().min(1).describe("Working folder (absolute path) on the target relay. Left out: your own folder."),
    repo: z.string().min(1).describe('Claude Cloud only, instead of cwd: the git repository to clone (any git URL, an absolute path on the relay, or GitHub "owner/name").'),
    branch: z.string().min(1).describe("The branch to work on. Local providers: the session works in a git worktree of its folder's repository on this branch (made from HEAD when missing). Claude Cloud: the branch of repo (made from the default branch when missing)."),
    mode: modeArg,
    effort: effortArg,
    title: z.string().min(1).max(200).describe("Title shown in the session list."),
    group: z.string().min(1).describe("An existing session group to join, by id or name (relay_info lists them)."),
    wait_seconds: waitSecondsArg,
  },
  async handler(ctx, args) {
    const { relay, caller } = ctx;
    if (typeof args.text !== "string") throw new RelayError("REMOTE_RELAY_INVALID_INPUT", `create_session needs text: the first prompt of the new session. ${NOTHING}`);
    if (caller.via_session && !caller.may_create_sessions) {
      throw new RelayError("REMOTE_RELAY_PERMISSION", `This session was started by an agent, and such a session cannot start sessions itself. Only the owner can let this session start sessions. ${NOTHING}`);
    }
    const providerId = (args.provider as string | undefined) ?? caller.provider;
    const provider = getProvider(providerId);
    if (!provider) throw new RelayError("REMOTE_RELAY_INVALID_INPUT", `Unknown provider "${providerId}". Providers: ${providerList().map((p) => p.id).join(", ")}. ${NOTHING}`);
    if (provider.id === "openai-image") throw new RelayError("REMOTE_RELAY_UNSUPPORTED", `OpenAI Image conversations cannot be started with create_session. ${NOTHING}`);
    await relay.probes.firstChecks([provider.id]);
    const avail = providerAvailability(provider.id, { settings: relay.settings.get() as unknown as Record<string, unknown> });
    if (!avail.available) throw new RelayError("REMOTE_RELAY_PROVIDER_UNAVAILABLE", `${provider.name} is not available on relay "${relay.name}": ${avail.reason}. ${NOTHING}`, avail.code ? { remoteCode: avail.code } : {});
    const inherited = !args.model && provider.id === caller.provider ? caller.model : undefined;
    const model = checkModel(provider.id, (args.model as string | undefined) ?? inherited, { relayName: relay.name, action: "create_session" });
    const effort = (args.effort as string | undefined) ?? (provider.efforts.includes(caller.effort as never) ? caller.effort : null);
    if (effort && !provider.efforts.includes(effort as never)) {
      throw new RelayError("REMOTE_RELAY_INVALID_INPUT", `effort "${effort}" is not offered by ${provider.name}: ${provider.efforts.join(", ")}. ${NOTHING}`);
    }
    const cloud = provider.id === "claude-cloud";
    if (cloud && args.cwd) throw new RelayError("REMOTE_RELAY_INVALID_INPUT", `Claude Cloud sessions take repo and branch instead of cwd: the relay clones the branch into a workspace of its own. ${NOTHING}`);
    if (!cloud && args.repo) throw new RelayError("REMOTE_RELAY_INVALID_INPUT", `repo is for Claude Cloud sessions; ${provider.name} works in a folder (cwd), on a branch of its repository with branch. ${NOTHING}`);
    if (!cloud && args.branch && !worksInFolder(provider.id)) throw new RelayError("REMOTE_RELAY_INVALID_INPUT", `branch is for providers that work in a folder of this relay; ${provider.name} does not. ${NOTHING}`);
    // The repository is asked before any card: a bad address or branch is refused at once.
    const plan = cloud ? await planCloud(args.repo, args.branch, NOTHING) : null;
    const cwd = cloud ? "" : checkFolder((args.cwd as string | undefined) ?? caller.cwd, NOTHING);
    // A worktree of its own (contract §10.1): asked for with branch, or the worktrees setting.
    const tree = cloud ? null : await planSessionWorktree(ctx.worktrees.lifecycle, {
      folder: cwd, branch: args.branch as string | undefined, byAgent: true, setting: relay.settings.get().worktrees, nothing: NOTHING,
    });
    const group = args.group ? findGroupForCreate(relay, String(args.group)) : null;
    const mode = (args.mode as Mode | undefined) ?? caller.mode;
    const title = (args.title as string | undefined) ?? titleFrom(args.text);
    checkWorkingLimit(ctx, "create_session", null);
    await ctx.approve({
      once: "create_session", prompts: 1,
      details: [`Title: ${title}`, `Provider: ${provider.name}`, `Model: ${model.model}`, `Mode: ${mode}`, ...(effort ? [`Effort: ${effort}`] : []),
        ...(group ? [`Group: ${group.name} (${group.id})`] : []), plan ? `Repo: ${plan.repo.display} · branch ${plan.branch}${plan.exists ? "" : " (new)"}` : `Folder: ${cwd}`,
        ...(tree ? [worktreeCardLine(tree)] : [])],
    });
    const staged: Staged | null = plan ? await cloneCloud(relay.dataDir, plan, NOTHING, relay.name) : null;
    let session: SessionRow;
    try {
      session = relay.db.transaction(() => {
        const s = relay.sessions.create({
          provider: provider.id, model: model.model, effort, mode, cwd: staged?.dir ?? cwd, title,
          repo: plan?.repo.display ?? null, branch: plan?.branch ?? null, viaSession: caller.id,
        });
        // The group may have been dissolved while the card waited: refused, nothing created.
        if (group) recheckGroup(relay, group);
        if (group) relay.sessions.update(s.id, { group_id: group.id });
        // seed §8.2: a session started from a paired relay joins no group unless one is named.
        else if (!ctx.remote) joinStarterGroup(relay, relay.sessions.get(caller.id)!, s.id);
        // Last: a refusal above leaves the clone in staging, where discard() removes it.
        if (staged) relay.sessions.update(s.id, { cwd: staged.place(s.id) });
        return relay.sessions.get(s.id)!;
      })();
    } finally {
      staged?.discard();
    }
    const worktree = tree
      ? await makeSessionWorktree(ctx.worktrees.lifecycle, tree, session, () => relay.deleteSession(session.id), NOTHING)
      : null;
    if (worktree) {
      relay.sessions.update(session.id, { cwd: worktree.path, branch: worktree.branch });
      session = relay.sessions.get(session.id)!;
    }
    if (!plan) relay.noteCwd(cwd);
    relay.bus.emit({ type: "session.updated", sessionId: session.id });
    relay.bus.emit({ type: "session.updated", sessionId: caller.id });
    const { turn } = relay.turns.enqueue({
      sessionId: session.id, ...promptKind(ctx), text: agentPromptText(ctx, args.text), from: fromInfo(ctx), fromSession: caller.id, mode, model: model.model,
    });
    relay.watchingHooks?.promptSent(caller.id, turn.id);
    const r = await waitForTurn(ctx, turn, args.wait_seconds as number | undefined);
    relay.watchingHooks?.replyReceived(caller.id, turn.id, r.status as string);
    const joined = groupOf(relay, relay.sessions.get(session.id)!);
    return withGroupWarning({
      summary: statusSummary("create_session", relay.name, session.id, r),
      ...r,
      provider: provider.id, model: model.model, mode, effort, title,
      ...(session.repo ? { repo: session.repo, branch: session.branch } : {}),
      ...(worktree ? { worktree } : {}),
      group: joined,
      ...modelNotes(model, r),
    }, group, joined);
  },
};

function titleFrom(text: string): string {
  const first = text.split("\n").find((l) => l.trim())?.trim() ?? "New session";
  return first.length > 60 ? `${first.slice(0, 57)}…` : first;
}
