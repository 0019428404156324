import { RelayError } from "../core/errors.ts";
import type { Effort, Mode, SessionRow } from "../sessions/types.ts";
import { getProvider } from "../providers/catalog.ts";
import { checkModel } from "../providers/model-check.ts";
import type { GroupRef } from "../groups/groups.ts";
import { checkFolder } from "./commands/new-session.ts";
import type { ActionContext } from "./types.ts";
import { planKnobs, type KnobPlan, type ThinkingDisplay, type Window } from "./update-session-knobs.ts";

// Checks a whole update_session call on the target before any card and before anything is
// written (relay_tool §8.2): model and effort, group, folder. What it returns is only what
// would change; a call that changes nothing asks nobody.

export const NOTHING = "Nothing was changed.";

export interface UpdateArgs {
  model?: string;
  effort?: Effort;
  mode?: Mode;
  title?: string;
  cwd?: string;
  group?: string;
  auto_compact_window?: Window;
  thinking_enabled?: boolean;
  thinking_display?: ThinkingDisplay;
}

export type GroupChange =
  | { kind: "join"; group: GroupRef }
  | { kind: "create"; name: string }
  | { kind: "leave"; from: string };

export interface Plan {
  fields: Partial<Pick<SessionRow, "model" | "effort" | "mode" | "title">>;
  knobs: KnobPlan;
  group?: GroupChange;
  cwd?: string;
  /** In the order they are written: fields and knobs, then group, then folder. */
  changed: string[];
  details: string[];
  notes: string[];
  modelNote?: string;
}

/** `group: "none"` takes a session out of its group (an empty value counts as no argument). */
export const LEAVE_GROUP = "none";

/** What planning reads: the store and the groups. */
type PlanDeps = Pick<ActionContext, "identity" | "sessions" | "tasks" | "groups">;

export function planUpdate(d: PlanDeps, s: SessionRow, a: UpdateArgs): Plan {
  const plan: Plan = { fields: {}, knobs: planKnobs(s, a), changed: [], details: [], notes: [] };
  const provider = getProvider(s.provider);
  if (a.model !== undefined) {
    // A Copilot session is checked against Copilot's list only: it never moves to another provider.
    const m = checkModel(s.provider, a.model, { relayName: d.identity.name, action: "update_session" });
    if (m.modelNote) plan.modelNote = m.modelNote;
    if (m.model !== s.model) {
      plan.fields.model = m.model;
      plan.changed.push("model");
      plan.details.push(`Model: ${m.model}`);
    }
  }
  if (a.effort !== undefined) {
    if (!provider?.efforts.includes(a.effort)) {
      throw new RelayError(
        "REMOTE_RELAY_INVALID_INPUT",
        `effort "${a.effort}" is not offered by ${provider?.name ?? s.provider}: ${provider?.efforts.join(", ")}. ${NOTHING}`,
      );
    }
    if (a.effort !== s.effort) {
      plan.fields.effort = a.effort;
      plan.changed.push("effort");
      plan.details.push(`Effort: ${a.effort}`);
    }
  }
  if (a.mode !== undefined && a.mode !== s.mode) {
    plan.fields.mode = a.mode;
    plan.changed.push("mode");
    plan.details.push(`Mode: ${a.mode}`);
  }
  if (a.title !== undefined && a.title.trim() !== s.title) {
    if (!a.title.trim()) throw new RelayError("REMOTE_RELAY_INVALID_INPUT", `title must not be blank. ${NOTHING}`);
    plan.fields.title = a.title.trim();
    plan.changed.push("title");
    plan.details.push(`Title: ${plan.fields.title}`);
  }
  plan.changed.push(...plan.knobs.changed);
  plan.details.push(...plan.knobs.details);
  plan.notes.push(...plan.knobs.notes);

  if (a.group !== undefined) planGroup(d, s, a.group, plan);
  if (a.cwd !== undefined && a.cwd !== s.cwd) planFolder(d, s, a.cwd, plan);
  return plan;
}

function planGroup({ groups }: PlanDeps, s: SessionRow, ref: string, plan: Plan): void {
  const current = groups.of(s);
  if (ref.trim().toLowerCase() === LEAVE_GROUP) {
    if (!current) return;
    plan.group = { kind: "leave", from: current.id };
    plan.details.push(`Group: none (leaves ${current.name})`);
  } else {
    const found = groups.resolveForUpdate(ref, NOTHING);
    if ("create" in found) {
      plan.group = { kind: "create", name: found.create };
      plan.details.push(`Group: new group "${found.create}"`);
    } else {
      if (current?.id === found.id) return;
      plan.group = { kind: "join", group: found };
      plan.details.push(`Group: ${found.name} (${found.id})`);
    }
  }
  plan.changed.push("group");
}

/** Why a session cannot move to another folder now, or null. */
export function folderBusy(
  { sessions, tasks }: Pick<ActionContext, "sessions" | "tasks">,
  s: SessionRow,
): string | null {
  const turns = sessions.activeTurns(s.id);
  if (turns.some((t) => t.status === "running")) return "a turn is running there";
  if (turns.length) return "a turn is queued there";
  const task = tasks.tasksOf(s.id).find((t) => t.status === "running");
  if (task) return `a background task runs there ("${task.description}", ${task.id})`;
  return null;
}

export function busyError(reason: string, tail: string): RelayError {
  return new RelayError(
    "REMOTE_RELAY_BUSY",
    `The session cannot move to another folder now: ${reason}. Wait until it is idle. ${tail}`,
  );
}

function planFolder(d: PlanDeps, s: SessionRow, cwd: string, plan: Plan): void {
  if (s.provider === "claude-cloud") {
    throw new RelayError(
      "REMOTE_RELAY_INVALID_INPUT",
      `Claude Cloud sessions work on a clone of their repository (${s.repo ?? "their repo"}); cwd cannot change. ${NOTHING}`,
    );
  }
  checkFolder(cwd, NOTHING);
  const busy = folderBusy(d, s);
  if (busy) throw busyError(busy, NOTHING);
  plan.cwd = cwd;
  plan.changed.push("cwd");
  plan.details.push(`Folder: ${cwd}`);
}
