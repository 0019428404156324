// One conversation message as the owner sees it. Roles look different: your prompts on the
// right, the agent's replies on the left (Markdown, with what the agent did), relay events
// and schedules as compact automated lines. Long messages fold.
import { h, fmtTime } from "./dom.js";
import { markdown } from "./markdown.js";
import { activityNode, imagesNode, usageText } from "./activity.js";

const ROLE_NAME = { user: "You", agent: "Agent", event: "Relay event", schedule: "Schedule", remote: "Agent on another relay" };
const FOLD_CHARS = 3000;
const FOLD_LINES = 40;

/** "↗ from desk · Review: server/ · scripted-1" (seed §3), for prompts another agent sent. */
export function fromBadge(from) {
  const who = [from.relay, from.title || from.session, from.model].filter(Boolean).join(" · ");
  return h("span", { class: "badge badge-from", title: from.session ? `session ${from.session}` : null }, `↗ from ${who}`);
}

/** The agent's reply: Markdown, with each scripted `tool: {json}` line shown as one 🛰️ line (seed §3). */
export function agentBody(text) {
  const body = h("div", { class: "msg-body" });
  let para = [];
  const flush = () => {
    if (para.length && para.join("").trim()) body.append(markdown(para.join("\n")));
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
    h("pre", { class: "tool-json", tabindex: 0 }, JSON.stringify(r, null, 2)));
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

/** Relay events and schedules: one compact line marked as automated; several lines fold open. */
function compact(m, icon) {
  const [first, ...rest] = m.text.split("\n");
  const head = [h("span", { class: "compact-icon", "aria-hidden": "true" }, icon), h("span", { class: "auto-tag" }, "automated"), h("span", { class: "compact-text" }, first), h("time", { class: "msg-time" }, fmtTime(m.createdAt))];
  return h("div", { class: `msg msg-compact msg-auto msg-${m.role}`, role: "article", "aria-label": ROLE_NAME[m.role] ?? m.role },
    rest.length ? h("details", {}, h("summary", {}, head), h("pre", { class: "compact-more" }, rest.join("\n"))) : h("div", { class: "compact-line" }, head));
}

/** A long body shows its start and a button that opens the rest. */
function foldable(body, text) {
  const lines = text.split("\n").length;
  if (text.length <= FOLD_CHARS && lines <= FOLD_LINES) return [body];
  body.classList.add("folded");
  const size = text.length > 10_000 ? `${Math.round(text.length / 1024)} KB` : `${lines} lines`;
  const btn = h("button", { class: "btn btn-small btn-fold", type: "button", "aria-expanded": "false" }, `Show all (${size})`);
  btn.addEventListener("click", () => {
    const open = body.classList.toggle("folded") === false;
    btn.setAttribute("aria-expanded", String(open));
    btn.textContent = open ? "Fold" : `Show all (${size})`;
  });
  return [body, btn];
}

const OUTCOME_NOTE = { stopped: ["⏹", "Stopped: the reply ended here."], error: ["⚠", "The turn ended with an error"] };

export function messageNode(m, sessionId) {
  if (m.role === "event") return compact(m, "📡");
  if (m.role === "schedule") return compact(m, "⏰");
  const role = ROLE_NAME[m.role] ? m.role : "agent";
  const meta = m.meta ?? {};
  // A prompt an agent sent is not yours: the label names the agent, the badge where it came from.
  const who = m.from ? `Agent · ${m.from.title || m.from.session}` : ROLE_NAME[role];
  const usage = usageText(meta.usage);
  const head = h("div", { class: "msg-meta" },
    h("span", { class: "msg-who" }, who),
    m.model ? h("span", { class: "msg-model" }, m.model) : null,
    m.from ? fromBadge(m.from) : null,
    usage ? h("span", { class: "msg-usage", title: "Tokens and cost of this turn" }, usage) : null,
    h("time", { class: "msg-time", datetime: m.createdAt }, fmtTime(m.createdAt)));
  const body = role === "agent" ? agentBody(m.text) : promptBody(m.text, m.from);
  const status = m.status ?? (m.error ? "error" : null);
  const note = status === "stopped" ? h("p", { class: "msg-outcome", role: "note" }, h("span", { "aria-hidden": "true" }, "⏹ "), OUTCOME_NOTE.stopped[1])
    : m.error ? h("p", { class: "msg-error", role: "note" }, h("span", { "aria-hidden": "true" }, "⚠ "), `The turn ended with an error: ${m.error}`) : null;
  return h("article", { class: `msg msg-${role}${m.from ? " msg-from" : ""}`, "aria-label": `${who} message` },
    head,
    role === "agent" ? activityNode(meta.activity) : null,
    ...foldable(body, m.text),
    role === "agent" && sessionId ? imagesNode(sessionId, meta.images) : null,
    note);
}

/** A turn that ended without a reply message: stopped before it wrote, or failed. */
export function turnOutcomeNode(t) {
  const [icon, word] = OUTCOME_NOTE[t.status] ?? ["•", t.status];
  return h("div", { class: `msg msg-compact turn-outcome outcome-${t.status}`, role: "note", "aria-label": t.status === "stopped" ? "Turn stopped" : "Turn failed" },
    h("div", { class: "compact-line" }, h("span", { class: "compact-icon", "aria-hidden": "true" }, icon),
      h("span", { class: "compact-text" }, t.status === "stopped" ? "Stopped before the agent replied." : `${word}${t.error ? `: ${t.error}` : ""}`),
      h("time", { class: "msg-time" }, fmtTime(t.endedAt))));
}

const Q_OUTCOME = { answered: "answered", dismissed: "dismissed", withdrawn: "withdrawn by the agent", ended: "ended unanswered" };

/** A question that no longer waits: what was asked and what you answered. */
export function questionHistoryNode(q) {
  const answer = q.status === "answered" ? ` → ${q.choice ?? ""}${q.choice && q.answer ? " · " : ""}${q.answer ?? ""}` : "";
  return h("details", { class: `msg msg-compact q-history q-${q.status}`, role: "note", "aria-label": `Question ${Q_OUTCOME[q.status] ?? q.status}` },
    h("summary", { class: "compact-line" }, h("span", { class: "compact-icon", "aria-hidden": "true" }, "❓"),
      h("span", { class: "compact-text" }, `${q.question} — ${Q_OUTCOME[q.status] ?? q.status}${answer}`),
      h("time", { class: "msg-time" }, fmtTime(q.endedAt ?? q.createdAt))),
    h("div", { class: "q-detail" },
      q.options?.length ? h("p", {}, `Options: ${q.options.join(" · ")}${q.recommendation ? ` (recommended: ${q.recommendation})` : ""}`) : null,
      q.detail ? h("p", {}, q.detail) : null,
      q.via ? h("p", {}, `Answered on relay ${q.via}`) : null));
}

/** The reply being written right now (inFlight); its body is replaced as chunks arrive. */
export function inFlightNode(inFlight, model) {
  const body = h("div", { class: "inflight-body" }, inFlight.text ? agentBody(inFlight.text) : null);
  const node = h("article", { class: "msg msg-agent msg-inflight", "aria-label": "Reply in progress", "aria-busy": "true" },
    h("div", { class: "msg-meta" }, h("span", { class: "msg-who" }, "Agent"), model ? h("span", { class: "msg-model" }, model) : null,
      h("span", { class: "typing", "aria-hidden": "true" }, h("i"), h("i"), h("i")), h("span", { class: "msg-time" }, "writing…")),
    body);
  node.body = body;
  return node;
}
