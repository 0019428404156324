// A "model" for the fake model servers: the owner's prompt carries a plan (relay_tool calls
// to make, in order) and the fake answers each request with the next step, the way a real
// model would drive a real CLI: Claude first loads the deferred tool with ToolSearch, Copilot
// calls `relay-relay_tool` directly, Grok goes through `use_tool`. When every step has a
// result, the model answers one line per step, so a test reads what each call returned in
// the reply that reaches the owner.
import type { MessagesAnswer, MessagesCall } from "./fake-anthropic.ts";
import type { ChatAnswer, ChatCall } from "./fake-openai.ts";
import { contentText } from "./fake-openai.ts";

export type Step = Record<string, unknown> & { action: string };

const OPEN = "[[oar-plan ";
const CLOSE = "]]";

/** The owner's prompt: a sentence for people, the plan for the fake model. */
export function planPrompt(steps: Step[], intro = "Use relay_tool for these steps, then report."): string {
  return `${intro}\n${OPEN}${Buffer.from(JSON.stringify(steps)).toString("base64url")}${CLOSE}`;
}

export function readPlan(text: string): Step[] | null {
  const at = text.lastIndexOf(OPEN);
  if (at < 0) return null;
  const end = text.indexOf(CLOSE, at);
  try {
    return JSON.parse(Buffer.from(text.slice(at + OPEN.length, end), "base64url").toString("utf8"));
  } catch {
    return null;
  }
}

/** One short line for a relay_tool result as the tool returned it (JSON, maybe fenced), or
 * what the CLI put there instead (a refusal). */
export function summarize(text: string): string {
  const a = text.indexOf("{");
  const b = text.lastIndexOf("}");
  let r: any;
  try {
    r = JSON.parse(text.slice(a, b + 1));
  } catch {
    return `not run: ${text.replace(/\s+/g, " ").slice(0, 160)}`;
  }
  if (r.ok === false) return `error ${r.code}`;
  if (r.status)
    return `status=${r.status}${r.reply?.text !== undefined ? ` reply=${JSON.stringify(r.reply.text)}` : ""}${r.error ? ` error=${JSON.stringify(r.error)}` : ""}`;
  if (Array.isArray(r.sessions)) return `sessions=${r.sessions.length}`;
  if (Array.isArray(r.messages)) return `messages=${r.messages.length}`;
  return `ok ${String(r.summary ?? "").slice(0, 120)}`;
}

export function finalText(results: string[]): string {
  return `Relay results:\n${results.map((r, i) => `step ${i + 1}: ${summarize(r)}`).join("\n")}`;
}

// ---- Anthropic Messages (Claude Code) ----

const CLAUDE_RELAY = "mcp__relay__relay_tool";

/** Index of the message that started this turn: the last user message that is not tool results. */
function anthropicTurnStart(messages: any[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role !== "user") continue;
    if (typeof m.content === "string" || !m.content.some((b: any) => b.type === "tool_result")) return i;
  }
  return 0;
}

const blockText = (c: any): string => (typeof c === "string" ? c : (c ?? []).map((b: any) => b.text ?? "").join(""));

export function claudeAgent(call: MessagesCall): MessagesAnswer {
  const start = anthropicTurnStart(call.messages);
  const plan = readPlan(blockText(call.messages[start]?.content));
  if (!plan) return { text: "No plan in this prompt." };
  const names = new Map<string, string>();
  const results: string[] = [];
  for (const m of call.messages.slice(start)) {
    if (!Array.isArray(m.content)) continue;
    for (const b of m.content) {
      if (b.type === "tool_use") names.set(b.id, b.name);
      if (b.type === "tool_result" && names.get(b.tool_use_id) === CLAUDE_RELAY) results.push(blockText(b.content));
    }
  }
  if (results.length >= plan.length) return { text: finalText(results) };
  if (call.tools.includes(CLAUDE_RELAY)) return { toolUses: [{ name: CLAUDE_RELAY, input: plan[results.length] }] };
  // Deferred: load it by name first (Claude Code's ToolSearch).
  if (call.tools.includes("ToolSearch"))
    return { toolUses: [{ name: "ToolSearch", input: { query: `select:${CLAUDE_RELAY}`, max_results: 1 } }] };
  return { text: `relay_tool is not offered (tools: ${call.tools.join(", ")})` };
}

// ---- OpenAI chat completions (Copilot, Grok) ----

export function openaiTurn(call: ChatCall): {
  plan: Step[] | null;
  calls: Map<string, { name: string; args: any }>;
  results: { id: string; text: string }[];
} {
  const start = call.messages.map((m) => m.role).lastIndexOf("user");
  const plan = readPlan(contentText(call.messages[start]?.content));
  const calls = new Map<string, { name: string; args: any }>();
  const results: { id: string; text: string }[] = [];
  for (const m of call.messages.slice(start + 1)) {
    for (const t of m.tool_calls ?? []) {
      let args: any = {};
      try {
        args = JSON.parse(t.function?.arguments ?? "{}");
      } catch {}
      calls.set(t.id, { name: t.function?.name, args });
    }
    if (m.role === "tool") results.push({ id: m.tool_call_id, text: contentText(m.content) });
  }
  return { plan, calls, results };
}

/** Copilot: relay_tool is offered by itself, named `<server>-relay_tool`. */
export function copilotAgent(call: ChatCall): ChatAnswer {
  const { plan, calls, results } = openaiTurn(call);
  if (!plan) return { text: "No plan in this prompt." };
  const relayResults = results.filter((r) => /relay_tool$/.test(calls.get(r.id)?.name ?? "")).map((r) => r.text);
  if (relayResults.length >= plan.length) return { text: finalText(relayResults) };
  const name = call.tools.find((t) => /relay_tool$/.test(t));
  if (!name) return { text: `relay_tool is not offered (tools: ${call.tools.join(", ")})` };
  return { toolCalls: [{ name, arguments: plan[relayResults.length] }] };
}

/** Grok: MCP tools are deferred; `use_tool { tool_name: "relay__relay_tool", tool_input }` calls one. */
export function grokAgent(call: ChatCall): ChatAnswer {
  const { plan, calls, results } = openaiTurn(call);
  if (!plan) return { text: "No plan in this prompt." };
  const relayResults = results
    .filter((r) => {
      const c = calls.get(r.id);
      return c?.name === "use_tool" && c.args?.tool_name === "relay__relay_tool";
    })
    .map((r) => r.text);
  if (relayResults.length >= plan.length) return { text: finalText(relayResults) };
  if (!call.tools.includes("use_tool")) return { text: `use_tool is not offered (tools: ${call.tools.join(", ")})` };
  return {
    toolCalls: [
      { name: "use_tool", arguments: { tool_name: "relay__relay_tool", tool_input: plan[relayResults.length] } },
    ],
  };
}
