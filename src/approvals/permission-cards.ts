import { MINUTE } from "../core/clock.ts";
import type { PermissionOutcome, PermissionRequest } from "../providers/acp-worker.ts";
import type { Mode } from "../sessions/types.ts";
import type { Approvals } from "./approvals.ts";
import { allowOnce } from "./permission-choice.ts";
import { permissionDetail } from "./permission-detail.ts";

// A CLI's session/request_permission (it asks before using a tool) under the relay's modes:
// - agent: the relay answers allow-once itself (never an "always" option); a request that
//   offers only "always" options becomes a card;
// - ask and plan: every request becomes a card of kind `permission` in the conversation; the
//   agent waits for the owner (up to Longest wait per tool call; then it is refused as cancelled).

export interface PermissionContext {
  sessionId: string;
  turnId: string;
  mode: Mode;
  relayName: string;
  providerName: string;
  waitMinutes: number;
  now: number;
  /** The session's folder: an edit's diff is made against the file there. */
  cwd?: string | null;
}

export async function answerPermission(
  approvals: Approvals,
  ctx: PermissionContext,
  req: PermissionRequest,
  signal: AbortSignal,
): Promise<PermissionOutcome> {
  const options = req.options.map((o) => ({ id: o.optionId, name: o.name, kind: o.kind }));
  if (ctx.mode === "agent") {
    const once = allowOnce(options);
    if (once) return { outcome: "selected", optionId: once.id };
  }
  const tool = req.toolCall as {
    title?: string | null;
    kind?: string | null;
    rawInput?: unknown;
    locations?: { path?: unknown }[] | null;
    content?: unknown;
  };
  const title = tool.title || tool.kind || "a tool";
  const input = tool.rawInput === undefined ? "" : JSON.stringify(tool.rawInput).slice(0, 300);
  // The files it acts on as the agent resolved them (a link's real target), which the input may not say.
  const files = (tool.locations ?? [])
    .flatMap((l) => (typeof l?.path === "string" && l.path ? [l.path] : []))
    .join(", ")
    .slice(0, 500);
  const why =
    ctx.mode === "agent"
      ? "it offers only options that would allow it always"
      : `the conversation is in ${ctx.mode} mode`;
  const { status, card } = await approvals.raise(
    {
      kind: "permission",
      sessionId: ctx.sessionId,
      action: "permission",
      relay: ctx.relayName,
      target: null,
      text: `${ctx.providerName} asks to use ${title}.${files ? ` Files: ${files}.` : ""}${input ? ` Input: ${input}` : ""} (asked because: ${why})`,
      details: [`Tool: ${title}`, ...(files ? [`Files: ${files}`] : []), ...(input ? [`Input: ${input}`] : [])],
      reasons: [why],
      detail: permissionDetail(tool, ctx.cwd),
      options,
      turnId: ctx.turnId,
      now: ctx.now,
      expiresAt: ctx.now + ctx.waitMinutes * MINUTE,
    },
    signal,
  );
  const optionId = (JSON.parse(card.decision_json ?? "{}") as { optionId?: string }).optionId;
  if ((status === "allowed" || status === "denied") && optionId) return { outcome: "selected", optionId };
  return { outcome: "cancelled" };
}
