// Runs one tool call of the model and shows it over ACP: `tool_call` (pending), permission in
// ask/plan mode for tools that change things, `tool_call_update` in_progress, then completed or
// failed with its output — and, for edits and writes, a `diff` the relay keeps with the reply.

import type * as acp from "@agentclientprotocol/sdk";
import { randomBytes } from "node:crypto";
import type { AgentSession } from "./session.ts";
import type { ToolCallOut } from "./stream.ts";
import { ToolRefused } from "./tools/paths.ts";
import { planEntries } from "./tools/plan.ts";
import type { Notify } from "../scripted/tasks.ts";
import type { Tool, ToolResult } from "./tools/types.ts";

export interface TurnIo {
  update(u: acp.SessionUpdate): Promise<void>;
  notify: Notify;
  requestPermission(p: acp.RequestPermissionRequest, signal: AbortSignal): Promise<acp.RequestPermissionResponse>;
  /** The client's `fs/write_text_file`, when it offered it in initialize. */
  writeText?(path: string, content: string, signal: AbortSignal): Promise<unknown>;
}

const OUTPUT_SHOWN = 4000;

export const PERMISSION_OPTIONS: acp.PermissionOption[] = [
  { optionId: "allow_once", name: "Allow", kind: "allow_once" },
  { optionId: "allow_always", name: "Always allow in this session", kind: "allow_always" },
  { optionId: "reject_once", name: "Deny", kind: "reject_once" },
];

function parseArgs(raw: string): Record<string, unknown> | string {
  if (raw.trim() === "") return {};
  try {
    const v = JSON.parse(raw);
    return v && typeof v === "object" && !Array.isArray(v) ? v : "the arguments are not a JSON object";
  } catch (e) {
    return `the arguments are not valid JSON (${(e as Error).message})`;
  }
}

/** Runs the call; the returned text is what the model reads as the tool's result. */
export async function runToolCall(
  session: AgentSession,
  call: ToolCallOut,
  tools: Map<string, Tool>,
  io: TurnIo,
  signal: AbortSignal,
): Promise<string> {
  const toolCallId = call.id || `call_${randomBytes(6).toString("hex")}`;
  const tool = tools.get(call.name);
  const args = parseArgs(call.arguments);
  if (!tool || typeof args === "string") {
    const why = !tool ? `There is no tool '${call.name}'.` : `Tool ${call.name} was not run: ${args}.`;
    await io.update({
      sessionUpdate: "tool_call",
      toolCallId,
      title: call.name || "unknown tool",
      kind: "other",
      status: "failed",
      content: [text(why)],
    });
    return why;
  }
  // Where it acts, links resolved (what a permission card shows); a path outside the folder
  // is refused here, before anyone is asked to allow it.
  const where = () => (tool.locations?.(args, session.cwd) ?? []).map((path) => ({ path }));
  let locations: acp.ToolCallLocation[];
  try {
    locations = where();
  } catch (e) {
    const why = e instanceof ToolRefused ? e.message : `${tool.name} failed: ${(e as Error).message}`;
    await io.update({
      sessionUpdate: "tool_call",
      toolCallId,
      title: tool.title(args),
      kind: tool.kind,
      status: "failed",
      rawInput: args,
      content: [text(why)],
    });
    return why;
  }
  await io.update({
    sessionUpdate: "tool_call",
    toolCallId,
    title: tool.title(args),
    kind: tool.kind,
    status: "pending",
    rawInput: args,
    locations,
  });

  if (tool.writes && session.mode !== "agent" && !session.alwaysAllowed.has(tool.kind)) {
    const res = await io.requestPermission(
      {
        sessionId: session.id,
        toolCall: {
          toolCallId,
          title: tool.title(args),
          kind: tool.kind,
          status: "pending",
          rawInput: args,
          locations,
        },
        options: PERMISSION_OPTIONS,
      },
      signal,
    );
    const picked = res.outcome.outcome === "selected" ? res.outcome.optionId : null;
    if (picked === "allow_always") session.alwaysAllowed.add(tool.kind);
    if (picked !== "allow_once" && picked !== "allow_always") {
      const why = res.outcome.outcome === "cancelled" ? "The permission request was cancelled" : "The user denied it";
      await io.update({
        sessionUpdate: "tool_call_update",
        toolCallId,
        status: "failed",
        content: [text(`${why}; nothing was done.`)],
      });
      return `${why} (${session.mode} mode); ${tool.name} was not run and nothing changed. Do not retry it unless the user asks.`;
    }
    // What was allowed is the target the card showed: a link changed meanwhile is not followed.
    const now = (() => {
      try {
        return JSON.stringify(where());
      } catch (e) {
        return (e as Error).message;
      }
    })();
    if (now !== JSON.stringify(locations)) {
      const why = `The path changed after it was allowed (a symbolic link now leads elsewhere); ${tool.name} was not run and nothing changed.`;
      await io.update({ sessionUpdate: "tool_call_update", toolCallId, status: "failed", content: [text(why)] });
      return why;
    }
  }

  await io.update({ sessionUpdate: "tool_call_update", toolCallId, status: "in_progress" });
  let result: ToolResult;
  try {
    const writeText = io.writeText;
    result = await tool.run(args, {
      cwd: session.cwd,
      sessionId: session.id,
      signal,
      notify: io.notify,
      ...(writeText ? { writeText: (p: string, c: string) => writeText(p, c, signal) } : {}),
    });
  } catch (e) {
    const message = e instanceof ToolRefused ? e.message : `${tool.name} failed: ${(e as Error).message}`;
    result = { text: message, failed: true };
  }
  if (tool.name === "update_plan") await io.update({ sessionUpdate: "plan", entries: planEntries(args) });
  const content: acp.ToolCallContent[] = [];
  if (result.diff)
    content.push({ type: "diff", path: result.diff.path, oldText: result.diff.oldText, newText: result.diff.newText });
  content.push(text(result.text.length > OUTPUT_SHOWN ? `${result.text.slice(0, OUTPUT_SHOWN)}\n[…]` : result.text));
  await io.update({
    sessionUpdate: "tool_call_update",
    toolCallId,
    status: result.failed ? "failed" : "completed",
    content,
    rawOutput: { text: result.text.slice(0, OUTPUT_SHOWN) },
  });
  return result.text;
}

const text = (t: string): acp.ToolCallContent => ({ type: "content", content: { type: "text", text: t } });
