import { z } from "zod";
import { defineAction } from "./define.ts";
import { RelayError } from "../core/errors.ts";
import { agentPromptText, checkWorkingLimit, fromInfo, promptKind } from "./target.ts";
import { effortArg, modeArg, modelArg, textArg, waitSecondsArg } from "./args.ts";
import { statusSummary, waitForTurn } from "./waiting.ts";
import { modelNotes } from "../providers/model-check.ts";
import { CATALOG } from "../providers/catalog.ts";
import { withGroupWarning } from "../groups/warning.ts";
import { newSession, planNewSession } from "./commands/new-session.ts";
import { worktreeCardLine } from "../worktrees/session-start.ts";

const NOTHING = "Nothing was created.";

export const createSession = defineAction({
  name: "create_session",
  since: "0.9.4",
  write: true,
  level: "full",
  strictArgs: true,
  nothing: NOTHING,
  args: {
    text: textArg,
    provider: z
      .string()
      .min(1)
      .describe(`Provider id: ${Object.keys(CATALOG).join(", ")}. Left out: your own session's provider.`),
    model: modelArg,
    cwd: z.string().min(1).describe("Working folder (absolute path) on the target relay. Left out: your own folder."),
    repo: z
      .string()
      .min(1)
      .describe(
        'Claude Cloud only, instead of cwd: the git repository to clone (any git URL, an absolute path on the relay, or GitHub "owner/name").',
      ),
    branch: z
      .string()
      .min(1)
      .describe(
        "The branch to work on. Local providers: the session works in a git worktree of its folder's repository on this branch (made from HEAD when missing). Claude Cloud: the branch of repo (made from the default branch when missing).",
      ),
    mode: modeArg,
    effort: effortArg,
    title: z.string().min(1).max(200).describe("Title shown in the session list."),
    group: z.string().min(1).describe("An existing session group to join, by id or name (relay_info lists them)."),
    wait_seconds: waitSecondsArg,
  },
  required: { text: "the first prompt of the new session" },
  async handler(
    ctx,
    { text, provider: providerId, model: askedModel, effort: askedEffort, cwd, repo, branch, ...args },
  ) {
    const { identity, sessions, turns, groups, watching, bus, caller, remote, approve } = ctx;
    if (caller.via_session && !caller.may_create_sessions) {
      throw new RelayError(
        "REMOTE_RELAY_PERMISSION",
        `This session was started by an agent, and such a session cannot start sessions itself. Only the owner can let this session start sessions. ${NOTHING}`,
      );
    }
    const plan = await planNewSession(
      ctx,
      { provider: providerId ?? caller.provider, model: askedModel, effort: askedEffort, cwd, repo, branch },
      { agent: caller },
    );
    const { provider, model, effort, cloud } = plan;
    const group = args.group ? groups.findForCreate(args.group) : null;
    const mode = args.mode ?? caller.mode;
    const title = args.title ?? titleFrom(text);
    checkWorkingLimit(ctx, "create_session", null);
    const prompt = agentPromptText(ctx, text);
    await approve({
      once: "create_session",
      prompts: 1,
      detail: prompt,
      details: [
        `Title: ${title}`,
        `Provider: ${provider.name}`,
        `Model: ${model.model}`,
        `Mode: ${mode}`,
        ...(effort ? [`Effort: ${effort}`] : []),
        ...(group ? [`Group: ${group.name} (${group.id})`] : []),
        cloud
          ? `Repo: ${cloud.repo.display} · branch ${cloud.branch}${cloud.exists ? "" : " (new)"}`
          : `Folder: ${plan.cwd}`,
        ...(plan.worktree ? [worktreeCardLine(plan.worktree)] : []),
      ],
    });
    const session = await newSession(ctx, plan, {
      title,
      mode,
      viaSession: caller.id,
      within: (s) => {
        // The group may have been dissolved while the card waited: refused, nothing created.
        if (group) groups.recheck(group);
        if (group) sessions.update(s.id, { group_id: group.id });
        // seed §8.2: a session started from a paired relay joins no group unless one is named.
        else if (!remote) groups.joinStarter(sessions.get(caller.id)!, s.id);
      },
    });
    bus.emit({ type: "session.updated", sessionId: caller.id });
    const { turn } = turns.enqueue({
      sessionId: session.id,
      ...promptKind(ctx),
      text: prompt,
      from: fromInfo(ctx),
      fromSession: caller.id,
      mode,
      model: model.model,
    });
    watching.noEcho.promptSent(caller.id, turn.id);
    const r = await waitForTurn(ctx, turn, args.wait_seconds);
    watching.noEcho.replyReceived(caller.id, turn.id, r.status);
    const joined = groups.of(sessions.get(session.id)!);
    return withGroupWarning(
      {
        summary: statusSummary("create_session", identity.name, session.id, r),
        ...r,
        provider: provider.id,
        model: model.model,
        mode,
        effort,
        title,
        ...(session.repo ? { repo: session.repo, branch: session.branch } : {}),
        ...(plan.worktree ? { worktree: ctx.worktrees.view(session.id) } : {}),
        group: joined,
        ...modelNotes(model, r),
      },
      group,
      joined,
    );
  },
});

function titleFrom(text: string): string {
  const first =
    text
      .split("\n")
      .find((l) => l.trim())
      ?.trim() ?? "New session";
  return first.length > 60 ? `${first.slice(0, 57)}…` : first;
}
