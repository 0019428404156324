import { z } from "zod";
import type { ActionContext } from "./types.ts";
import { type ArgsOf, defineAction } from "./define.ts";
import { RelayError } from "../core/errors.ts";
import type { SessionRow } from "../sessions/types.ts";
import { effortArg, modeArg, modelArg } from "./args.ts";
import { targetSession } from "./target.ts";
import type { GroupRef } from "../groups/groups.ts";
import { unknownGroup } from "../groups/find.ts";
import { checkFolder } from "./commands/new-session.ts";
import {
  busyError,
  folderBusy,
  LEAVE_GROUP,
  NOTHING,
  planUpdate,
  type Plan,
  type UpdateArgs,
} from "./update-session-plan.ts";
import { extraOf, knobsOf, THINKING_DISPLAYS } from "./update-session-knobs.ts";

// update_session (relay_tool §8.2, since 0.9.16): changes another session's settings for its
// later turns without prompting it. The whole call is checked first (plan), then the owner
// is asked where a rule says so, then the changes are written step by step; if a later step
// fails, the refusal still lists in `changed` what was written.

const SETTINGS = [
  "model",
  "effort",
  "mode",
  "title",
  "cwd",
  "group",
  "auto_compact_window",
  "thinking_enabled",
  "thinking_display",
] as const;
const OWNER_ONLY = "Whether a session may start sessions is the owner's setting alone.";

export function settingsOf({ groups }: Pick<ActionContext, "groups">, s: SessionRow) {
  const k = knobsOf(s);
  return {
    model: s.model,
    effort: s.effort,
    mode: s.mode,
    auto_compact_window: k.auto_compact_window,
    title: s.title,
    group: groups.of(s),
    thinking_enabled: k.thinking_enabled,
    thinking_display: k.thinking_display,
    cwd: s.cwd,
  };
}

const args = {
  session: z.string().min(1).describe("Session id whose settings to change (not your own conversation)."),
  model: modelArg,
  effort: effortArg,
  mode: modeArg.describe(
    'Relay mode for its later turns: "agent", "ask" or "plan" (holds until a send names another mode or comes from a caller in another mode).',
  ),
  title: z.string().min(1).max(200).describe("New title."),
  cwd: z
    .string()
    .min(1)
    .describe(
      "New working folder (absolute path on the target relay); restarts the session's CLI there. Refused while it is busy.",
    ),
  group: z
    .string()
    .min(1)
    .max(100)
    .describe(
      `Session group to move it into: an id, or a name (case-insensitive; a name the relay does not have creates a group). "${LEAVE_GROUP}" takes it out of its group.`,
    ),
  auto_compact_window: z
    .union([z.literal("auto"), z.number().int().min(0)])
    .describe(
      'Claude (and DeepSeek) sessions: "auto" or the context size in tokens at which it compacts; takes the nearest offered value. DeepSeek: 0 = 400,000.',
    ),
  thinking_enabled: z
    .union([z.boolean(), z.enum(["on", "off"])])
    .describe(
      'Claude sessions: extended thinking on or off. false counts as not given (empty values are ignored), so pass "off" to switch it off.',
    ),
  thinking_display: z
    .enum(THINKING_DISPLAYS)
    .describe('Claude sessions: how thinking shows: "summarized", "full" or "hidden".'),
};

export const updateSession = defineAction({
  name: "update_session",
  since: "0.9.16",
  write: true,
  level: "full",
  strictArgs: true,
  refusedArgs: { mayCreateSessions: OWNER_ONLY, may_create_sessions: OWNER_ONLY },
  nothing: NOTHING,
  args,
  async handler(ctx, given) {
    const { caller, approve } = ctx;
    if (!SETTINGS.some((k) => given[k] !== undefined)) {
      throw new RelayError(
        "REMOTE_RELAY_INVALID_INPUT",
        `update_session needs at least one setting: ${SETTINGS.join(", ")}. ${OWNER_ONLY} ${NOTHING}`,
      );
    }
    const s = targetSession(ctx, "update_session", given.session, { notSelf: true, notArchived: true });
    const plan = planUpdate(ctx, s, toUpdateArgs(given));
    const notes = [...plan.notes];
    if (!plan.changed.length) return result(ctx, s.id, [], notes, plan, {});

    // Sessions this conversation started are its own to change; any other needs the owner's
    // Allow once per conversation and relay. ask/plan add the usual write card either way.
    await approve({
      target: { id: s.id, title: s.title },
      details: plan.details,
      detail: plan.details.join("\n"),
      ...(s.via_session !== caller.id ? { once: "update_other" as const } : {}),
    });
    return apply(ctx, s.id, plan, notes);
  },
});

/** `thinking_enabled` as a boolean: "on"/"off" are there because false counts as not given. */
function toUpdateArgs({ thinking_enabled, ...rest }: ArgsOf<typeof args, never>): UpdateArgs {
  return {
    ...rest,
    ...(thinking_enabled !== undefined
      ? { thinking_enabled: thinking_enabled === "on" || thinking_enabled === true }
      : {}),
  };
}

async function apply(ctx: ActionContext, id: string, plan: Plan, notes: string[]) {
  const { identity, sessions, workers, folders, groups, bus, transaction } = ctx;
  // The card may have waited: the session can have gone meanwhile; nothing is written then.
  const s = targetSession(ctx, "update_session", id, { notSelf: true, notArchived: true });
  const changed: string[] = [];
  const fail = (err: RelayError, step: string) => {
    const written = changed.length
      ? `${step} was not changed; ${changed.join(", ")} ${changed.length > 1 ? "were" : "was"} changed.`
      : NOTHING;
    const message = err.message.endsWith(NOTHING)
      ? err.message.slice(0, -NOTHING.length) + written
      : `${err.message} ${written}`;
    return new RelayError(err.code, message.trim(), { ...err.extra, session: id, changed });
  };

  const fieldKeys = plan.changed.filter((k) => k !== "group" && k !== "cwd");
  if (fieldKeys.length) {
    transaction(() => {
      sessions.update(s.id, {
        ...plan.fields,
        ...(plan.knobs.changed.length ? { extra_json: JSON.stringify({ ...extraOf(s), ...plan.knobs.patch }) } : {}),
      });
    });
    changed.push(...fieldKeys);
  }

  let groupCreated: GroupRef | undefined;
  if (plan.group) {
    const g = plan.group;
    try {
      transaction(() => {
        if (g.kind === "leave") return groups.moveTo(s.id, null);
        if (g.kind === "join") {
          if (!groups.row(g.group.id)) {
            throw unknownGroup(
              `Session group "${g.group.name}" (${g.group.id}) on relay "${identity.name}" was dissolved meanwhile.`,
              groups.all(),
              NOTHING,
            );
          }
          return groups.moveTo(s.id, g.group.id);
        }
        // Someone may have made a group of that name while the card waited: join that one.
        const found = groups.resolveForUpdate(g.name, NOTHING);
        if (!("create" in found)) return groups.moveTo(s.id, found.id);
        const created = groups.create({ name: g.name, by: "agent", head: s.id });
        groupCreated = { id: created.id, name: g.name };
        groups.moveTo(s.id, created.id);
      });
      changed.push("group");
    } catch (err) {
      if (err instanceof RelayError) throw fail(err, "group");
      throw err;
    }
  }

  let relaunched: boolean | undefined;
  if (plan.cwd) {
    const current = sessions.get(s.id)!;
    const busy = folderBusy(ctx, current);
    if (busy) throw fail(busyError(busy, NOTHING), "cwd");
    try {
      checkFolder(plan.cwd, NOTHING);
    } catch (err) {
      if (err instanceof RelayError) throw fail(err, "cwd");
      throw err;
    }
    transaction(() => sessions.update(s.id, { cwd: plan.cwd }));
    folders.note(plan.cwd);
    changed.push("cwd");
    // A running CLI is ended so the next turn starts it in the new folder; one that is not
    // running (never started, or stopped while idle) starts there anyway.
    relaunched = workers.has(s.id);
    if (relaunched) workers.stop(s.id);
    else if (current.message_count === 0)
      notes.push("The session has not started yet; it keeps this folder for its first start.");
    else
      notes.push("The session's CLI was not running, so it was not restarted; the folder is saved for its next start.");
  }
  bus.emit({ type: "session.updated", sessionId: s.id });
  return result(ctx, s.id, changed, notes, plan, { relaunched, groupCreated });
}

function result(
  ctx: ActionContext,
  id: string,
  changed: string[],
  notes: string[],
  plan: Plan,
  extra: { relaunched?: boolean; groupCreated?: GroupRef },
) {
  const s = ctx.sessions.get(id)!;
  return {
    summary: `update_session → ${ctx.identity.name} session ${id}: ${changed.length ? changed.join(", ") : "nothing changed"}`,
    session: id,
    settings: settingsOf(ctx, s),
    changed,
    ...(extra.relaunched !== undefined ? { relaunched: extra.relaunched } : {}),
    ...(extra.groupCreated ? { groupCreated: extra.groupCreated } : {}),
    ...(plan.modelNote ? { modelNote: plan.modelNote } : {}),
    ...(notes.length ? { note: notes.join(" ") } : {}),
  };
}
