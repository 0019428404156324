// The plan-following "model" (relay-plan.ts) for the third-round CLIs: Gemini CLI
// (generateContent contents with functionCall / functionResponse parts), Codex (Responses API
// input items: function_call in the `mcp__relay` namespace, function_call_output) and Qwen
// Code (chat completions; MCP tools deferred behind its tool_search + tool_call bridge).
import type { GeminiAnswer, GeminiCall } from "./fake-gemini.ts";
import type { ResponsesAnswer, ResponsesCall } from "./fake-responses.ts";
import type { ChatAnswer, ChatCall } from "./fake-openai.ts";
import { finalText, openaiTurn, readPlan } from "./relay-plan.ts";

const partsText = (parts: any[]): string => (parts ?? []).map((p: any) => p?.text ?? "").join("");

/** Gemini CLI offers relay_tool as `mcp_relay_relay_tool` (MCP server "relay"). */
export function geminiAgent(call: GeminiCall): GeminiAnswer {
  const contents = call.contents;
  let start = -1;
  for (let i = contents.length - 1; i >= 0; i--) {
    if (contents[i].role === "user" && !(contents[i].parts ?? []).some((p: any) => p.functionResponse)) {
      start = i;
      break;
    }
  }
  const plan = readPlan(partsText(contents[start]?.parts));
  if (!plan) return { text: "No plan in this prompt." };
  const name = call.tools.find((t) => /relay_tool$/.test(t));
  const results = contents
    .slice(start + 1)
    .flatMap((c: any) => c.parts ?? [])
    .filter((p: any) => /relay_tool$/.test(p.functionResponse?.name ?? ""))
    .map((p: any) => responseText(p.functionResponse.response));
  if (results.length >= plan.length) return { text: finalText(results) };
  if (!name) return { text: `relay_tool is not offered (tools: ${call.tools.join(", ")})` };
  return { functionCalls: [{ name, args: plan[results.length] }] };
}

function responseText(r: any): string {
  if (typeof r?.output === "string") return r.output;
  if (typeof r?.error === "string") return r.error;
  if (Array.isArray(r?.content)) return r.content.map((c: any) => c?.text ?? "").join("");
  return JSON.stringify(r ?? {});
}

/** Codex offers relay_tool as `relay_tool` in the namespace `mcp__relay`. */
export function codexAgent(call: ResponsesCall): ResponsesAnswer {
  const input = call.input;
  let start = -1;
  for (let i = input.length - 1; i >= 0; i--) {
    const m = input[i];
    if (
      m.type === "message" &&
      m.role === "user" &&
      !/^<(environment_context|permissions)/.test(partsText(m.content).trim())
    ) {
      start = i;
      break;
    }
  }
  const plan = readPlan(partsText(input[start]?.content));
  if (!plan) return { text: "No plan in this prompt." };
  const relayCalls = new Set(
    input
      .slice(start + 1)
      .filter((i: any) => i.type === "function_call" && i.name === "relay_tool")
      .map((i: any) => i.call_id),
  );
  const results = input
    .slice(start + 1)
    .filter((i: any) => i.type === "function_call_output" && relayCalls.has(i.call_id))
    .map((i: any) => (typeof i.output === "string" ? i.output : partsText(i.output)));
  if (results.length >= plan.length) return { text: finalText(results) };
  const tool = call.tools.find((t) => t.endsWith(".relay_tool"));
  if (!tool) return { text: `relay_tool is not offered (tools: ${call.tools.join(", ")})` };
  return {
    toolCalls: [
      { name: "relay_tool", namespace: tool.slice(0, -".relay_tool".length), arguments: plan[results.length] },
    ],
  };
}

/** Qwen Code: relay_tool is deferred; the model reviews it with `tool_search` (`select:NAME`),
 * then calls it through `tool_call { name, arguments }`. The name is the one Qwen lists in its
 * deferred-tools reminder. */
export function qwenAgent(call: ChatCall): ChatAnswer {
  const { plan, calls, results } = openaiTurn(call);
  if (!plan) return { text: "No plan in this prompt." };
  const bridged = results.filter((r) => {
    const c = calls.get(r.id);
    return c?.name === "tool_call" && /relay_tool$/.test(String(c.args?.name ?? ""));
  });
  // "is not registered in this session. Run tool_search again": as a model would, it does.
  const refused = (t: string) => /Run tool_search again/.test(t);
  const relayResults = bridged.filter((r) => !refused(r.text)).map((r) => r.text);
  if (relayResults.length >= plan.length) return { text: finalText(relayResults) };
  if (!call.tools.includes("tool_search") || !call.tools.includes("tool_call"))
    return { text: `tool_search is not offered (tools: ${call.tools.join(", ")})` };
  const name = /\b(mcp__relay__relay_tool)\b/.exec(JSON.stringify(call.messages))?.[1] ?? "mcp__relay__relay_tool";
  if (bridged.filter((r) => refused(r.text)).length > 3) return { text: finalText(bridged.map((r) => r.text)) };
  const retry =
    bridged.length > 0 && refused(bridged.at(-1)!.text) && bridged.filter((r) => refused(r.text)).length <= 3;
  const reviewed = [...calls.values()].some((c) => c.name === "tool_search");
  if (!reviewed || (retry && [...calls.values()].at(-1)?.name !== "tool_search"))
    return { toolCalls: [{ name: "tool_search", arguments: { query: `select:${name}` } }] };
  return { toolCalls: [{ name: "tool_call", arguments: { name, arguments: plan[relayResults.length] } }] };
}
