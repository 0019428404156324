// One conversation message as the owner sees it. Roles look different: your prompts on the
// right, the agent's replies on the left, relay events and schedules as compact lines.
import { h, fmtTime } from "./dom.js";

const ROLE_NAME = { user: "You", agent: "Agent", event: "Relay event", schedule: "Schedule", remote: "Remote relay" };

/** "↗ from desk · Review: server/ · scripted-1" (seed §3), for prompts another agent sent. */
export function fromBadge(from) {
  const who = [from.relay, from.title || from.session, from.model].filter(Boolean).join(" · ");
  return h("span", { class: "badge badge-from", title: from.session ? `session ${from.session}` : null }, `↗ from ${who}`);
}

/** The agent's reply, with each `tool: {json}` line shown as one 🛰️ tool-call line (seed §3). */
function agentBody(text) {
  const body = h("div", { class: "msg-body" });
  let para = [];
  const flush = () => {
    if (para.length) body.append(h("p", { class: "msg-text" }, para.join("\n")));
    para = [];
  };
  for (const line of text.split("\n")) {
    const call = toolLine(line);
    if (call) {
      flush();
      body.append(call);
    } else para.push(line);
  }
  flush();
  return body;
}

function toolLine(line) {
  const m = /^tool: (\{.*\})\s*$/.exec(line);
  if (!m) return null;
  let r;
  try {
    r = JSON.parse(m[1]);
  } catch {
    return null;
  }
  const ok = r.ok !== false;
  const what = r.summary ?? (ok ? `relay_tool on ${r.relay ?? "?"}` : `${r.code ?? "error"}: ${r.error ?? ""}`);
  return h("details", { class: `tool-call ${ok ? "" : "tool-failed"}` },
    h("summary", {}, h("span", { "aria-hidden": "true" }, "🛰️ "), what),
    h("pre", { class: "tool-json" }, JSON.stringify(r, null, 2)));
}

/** A prompt from an agent starts with its "[Prompt from an agent …]" line: shown dimmed, the badge says it already. */
function promptBody(text, from) {
  const body = h("div", { class: "msg-body" });
  const nl = text.indexOf("\n");
  if (from && text.startsWith("[") && nl > 0) {
    body.append(h("p", { class: "msg-preamble" }, text.slice(0, nl)), h("p", { class: "msg-text" }, text.slice(nl + 1)));
  } else body.append(h("p", { class: "msg-text" }, text));
  return body;
}

/** Relay events and schedules: one compact line; several lines fold open on click. */
function compact(m, icon) {
  const [first, ...rest] = m.text.split("\n");
  const head = [h("span", { class: "compact-icon", "aria-hidden": "true" }, icon), h("span", { class: "compact-text" }, first), h("time", { class: "msg-time" }, fmtTime(m.createdAt))];
  return h("div", { class: `msg msg-compact msg-${m.role}`, role: "article", "aria-label": ROLE_NAME[m.role] ?? m.role },
    rest.length ? h("details", {}, h("summary", {}, head), h("pre", { class: "compact-more" }, rest.join("\n"))) : h("div", { class: "compact-line" }, head));
}

export function messageNode(m) {
  if (m.role === "event") return compact(m, "📡");
  if (m.role === "schedule") return compact(m, "⏰");
  const role = ROLE_NAME[m.role] ? m.role : "agent";
  const meta = h("div", { class: "msg-meta" },
    h("span", { class: "msg-who" }, ROLE_NAME[role]),
    m.model ? h("span", { class: "msg-model" }, m.model) : null,
    m.from ? fromBadge(m.from) : null,
    h("time", { class: "msg-time", datetime: m.createdAt }, fmtTime(m.createdAt)));
  const body = role === "agent" ? agentBody(m.text) : promptBody(m.text, m.from);
  const error = m.error ? h("p", { class: "msg-error", role: "note" }, `The turn ended with an error: ${m.error}`) : null;
  return h("article", { class: `msg msg-${role}${m.from ? " msg-from" : ""}`, "aria-label": `${ROLE_NAME[role]} message` }, meta, body, error);
}

/** The reply being written right now (inFlight). */
export function inFlightNode(inFlight, model) {
  return h("article", { class: "msg msg-agent msg-inflight", "aria-label": "Reply in progress", "aria-busy": "true" },
    h("div", { class: "msg-meta" }, h("span", { class: "msg-who" }, "Agent"), model ? h("span", { class: "msg-model" }, model) : null,
      h("span", { class: "typing", "aria-hidden": "true" }, h("i"), h("i"), h("i")), h("span", { class: "msg-time" }, "writing…")),
    inFlight.text ? agentBody(inFlight.text) : null);
}
