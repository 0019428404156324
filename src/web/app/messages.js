// One conversation message as the owner sees it. Roles look different: your prompts on the
// right, the agent's replies on the left (Markdown, with what the agent did), relay events
// and schedules as compact automated lines. Long messages fold.
import { h, fmtTime, icon } from "./dom.js";
import { withTitles } from "./titles.js";
import { markdown } from "./markdown.js";
import { activityNode, imagesNode, usageText } from "./activity.js";

const ROLE_NAME = {
  user: "You",
  agent: "Agent",
  event: "Relay event",
  schedule: "Schedule",
  remote: "Agent on another relay",
};
const FOLD_CHARS = 3000;
const FOLD_LINES = 40;

/** "↗ from desk · Review: server/ · scripted-1" (seed §3), for prompts another agent sent. */
export function fromBadge(from) {
  const who = [from.relay, from.title || from.session, from.model].filter(Boolean).join(" · ");
  return h(
    "span",
    { class: "badge badge-from", title: from.session ? `session ${from.session}` : null },
    `↗ from ${who}`,
  );
}

/** The agent's reply: Markdown, with each scripted `tool: {json}` line shown as one relay_tool line (seed §3). */
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

/** A result as readable fields (not raw JSON): an object's fields nested under its name, a
 * list of plain values joined, a list of objects one entry each; empty values left out (a
 * `null` would read as a word). Past two levels the rest is shortened. */
function fieldsNode(r, depth = 0) {
  const shown = Object.entries(r).filter(([k, v]) => k !== "summary" && v != null && v !== "");
  const deeper = (v) => (depth < 2 ? fieldsNode(v, depth + 1) : withTitles(JSON.stringify(v)).slice(0, 400));
  const val = (v) => {
    if (Array.isArray(v)) {
      if (!v.length) return "none";
      if (v.every((x) => x === null || typeof x !== "object")) return withTitles(v.filter((x) => x != null).join(", "));
      return h(
        "ol",
        { class: "tool-list" },
        v.slice(0, 20).map((x) => h("li", {}, x && typeof x === "object" ? deeper(x) : withTitles(String(x)))),
        v.length > 20 ? h("li", { class: "field-help" }, `and ${v.length - 20} more`) : null,
      );
    }
    return typeof v === "object" ? deeper(v) : withTitles(String(v));
  };
  return h(
    "dl",
    { class: "tool-fields" },
    shown.map(([k, v]) => [h("dt", {}, k.replace(/_/g, " ")), h("dd", {}, val(v))]),
  );
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
  const what = withTitles(
    r.summary ?? (ok ? `relay_tool on ${r.relay ?? "this relay"}` : `${r.code ?? "error"}: ${r.error ?? ""}`),
  );
  return h(
    "details",
    { class: `tool-call ${ok ? "" : "tool-failed"}` },
    h("summary", {}, icon("radio-tower", "tool-icon"), h("span", { class: "tool-title" }, what)),
    fieldsNode(r),
  );
}

/** A prompt from an agent starts with its "[Prompt from an agent …]" line: shown dimmed, the badge says it already. */
function promptBody(text, from) {
  const body = h("div", { class: "msg-body" });
  const nl = text.indexOf("\n");
  if (from && text.startsWith("[") && nl > 0) {
    body.append(
      h("p", { class: "msg-preamble" }, text.slice(0, nl)),
      h("p", { class: "msg-text" }, text.slice(nl + 1)),
    );
  } else body.append(h("p", { class: "msg-text" }, text));
  return body;
}

/** Relay events and schedules: one compact line marked as automated that leads with the news
 * (the relay's header line folds away with the rest). */
function compact(m, iconName) {
  const lines = m.text.split("\n");
  const header = /^\[relay (event|schedule)\b/.test(lines[0]) ? lines[0] : null;
  const body = (header ? lines.slice(1) : lines).filter((l) => l.trim());
  const news = withTitles((body[0] ?? lines[0]).replace(/^\[relay event\] /, "").replace(/^- /, ""));
  const sched = m.role === "schedule" && header ? /"([^"]*)"/.exec(header)?.[1] : null;
  const more = body.length > 1 ? body.length - 1 : 0;
  const head = [
    icon(iconName, "compact-icon"),
    h("span", { class: "auto-tag" }, m.role === "schedule" ? "schedule" : "relay event"),
    h("span", { class: "compact-text", title: body.join("\n") || lines[0] }, sched ? `${sched}: ${news}` : news),
    more ? h("span", { class: "field-help" }, `+${more} more`) : null,
    h("time", { class: "msg-time", datetime: m.createdAt }, fmtTime(m.createdAt)),
  ];
  return h(
    "div",
    { class: `msg msg-compact msg-auto msg-${m.role}`, role: "article", "aria-label": ROLE_NAME[m.role] ?? m.role },
    h("details", {}, h("summary", {}, head), h("pre", { class: "compact-more" }, withTitles(m.text))),
  );
}

/** A long body shows its start and a button that opens the rest. */
function foldable(body, text) {
  const lines = text.split("\n").length;
  if (text.length <= FOLD_CHARS && lines <= FOLD_LINES) return [body];
  body.classList.add("folded");
  const size = text.length > 10_000 ? `${Math.round(text.length / 1024)} KB` : `${lines} lines`;
  const btn = h(
    "button",
    { class: "btn btn-small btn-fold", type: "button", "aria-expanded": "false" },
    `Show all (${size})`,
  );
  btn.addEventListener("click", () => {
    const open = body.classList.toggle("folded") === false;
    btn.setAttribute("aria-expanded", String(open));
    btn.textContent = open ? "Fold" : `Show all (${size})`;
  });
  return [body, btn];
}

const OUTCOME_NOTE = {
  stopped: ["square", "Stopped: the reply ended here."],
  error: ["triangle-alert", "The turn ended with an error"],
};

export function messageNode(m, sessionId) {
  if (m.role === "event") return compact(m, "radio");
  if (m.role === "schedule") return compact(m, "alarm-clock");
  const role = ROLE_NAME[m.role] ? m.role : "agent";
  const meta = m.meta ?? {};
  // A prompt an agent sent is not yours: the label names the agent, the badge where it came from.
  const who = m.from ? `Agent · ${m.from.title || m.from.session}` : ROLE_NAME[role];
  const usage = usageText(meta.usage);
  const head = h(
    "div",
    { class: "msg-meta" },
    h("span", { class: "msg-who" }, who),
    m.model ? h("span", { class: "msg-model" }, m.model) : null,
    m.from ? fromBadge(m.from) : null,
    usage ? h("span", { class: "msg-usage", title: "Tokens and cost of this turn" }, usage) : null,
    h("time", { class: "msg-time", datetime: m.createdAt }, fmtTime(m.createdAt)),
  );
  // A failed turn's reply ends with "Error: …", which the note below says once.
  const text =
    m.error && m.text.endsWith(`Error: ${m.error}`) ? m.text.slice(0, -`Error: ${m.error}`.length).trimEnd() : m.text;
  const body = role === "agent" ? agentBody(text) : promptBody(text, m.from);
  const status = m.status ?? (m.error ? "error" : null);
  const note =
    status === "stopped"
      ? h("p", { class: "msg-outcome", role: "note" }, icon("square"), OUTCOME_NOTE.stopped[1])
      : m.error
        ? h(
            "p",
            { class: "msg-error", role: "note" },
            icon("triangle-alert"),
            `The turn ended with an error: ${m.error}`,
          )
        : null;
  return h(
    "article",
    { class: `msg msg-${role}${m.from ? " msg-from" : ""}`, "aria-label": `${who} message` },
    head,
    role === "agent" ? activityNode(meta.activity) : null,
    // A reply is its agent's conclusion: shown whole. Long prompts fold.
    ...(role === "agent" ? (text.trim() ? [body] : []) : foldable(body, text)),
    role === "agent" && sessionId ? imagesNode(sessionId, meta.images) : null,
    note,
  );
}

/** A turn that ended without a reply message: stopped before it wrote, or failed. */
export function turnOutcomeNode(t) {
  const [iconName, word] = OUTCOME_NOTE[t.status] ?? ["circle-x", t.status];
  return h(
    "div",
    {
      class: `msg msg-compact turn-outcome outcome-${t.status}`,
      role: "note",
      "aria-label": t.status === "stopped" ? "Turn stopped" : "Turn failed",
    },
    h(
      "div",
      { class: "compact-line" },
      icon(iconName, "compact-icon"),
      h(
        "span",
        { class: "compact-text" },
        t.status === "stopped" ? "Stopped before the agent replied." : `${word}${t.error ? `: ${t.error}` : ""}`,
      ),
      h("time", { class: "msg-time", datetime: t.endedAt }, fmtTime(t.endedAt)),
    ),
  );
}

const Q_OUTCOME = {
  answered: "answered",
  dismissed: "dismissed",
  withdrawn: "withdrawn by the agent",
  ended: "ended unanswered",
};

/** A question that no longer waits: what was asked and what you answered. */
export function questionHistoryNode(q) {
  const answer =
    q.status === "answered" ? ` → ${q.choice ?? ""}${q.choice && q.answer ? " · " : ""}${q.answer ?? ""}` : "";
  return h(
    "details",
    {
      class: `msg msg-compact q-history q-${q.status}`,
      role: "note",
      "aria-label": `Question ${Q_OUTCOME[q.status] ?? q.status}`,
    },
    h(
      "summary",
      { class: "compact-line" },
      icon("circle-help", "compact-icon"),
      h("span", { class: "compact-text" }, `${q.question} — ${Q_OUTCOME[q.status] ?? q.status}${answer}`),
      h("time", { class: "msg-time" }, fmtTime(q.endedAt ?? q.createdAt)),
    ),
    h(
      "div",
      { class: "q-detail" },
      q.options?.length
        ? h(
            "p",
            {},
            `Options: ${q.options.join(" · ")}${q.recommendation ? ` (recommended: ${q.recommendation})` : ""}`,
          )
        : null,
      q.detail ? h("p", {}, q.detail) : null,
      q.via ? h("p", {}, `Answered on relay ${q.via}`) : null,
    ),
  );
}

/** The reply being written right now (inFlight); its body is replaced as chunks arrive. */
export function inFlightNode(inFlight, model) {
  const body = h("div", { class: "inflight-body" }, inFlight.text ? agentBody(inFlight.text) : null);
  const node = h(
    "article",
    { class: "msg msg-agent msg-inflight", "aria-label": "Reply in progress", "aria-busy": "true" },
    h(
      "div",
      { class: "msg-meta" },
      h("span", { class: "msg-who" }, "Agent"),
      model ? h("span", { class: "msg-model" }, model) : null,
      h("span", { class: "typing", "aria-hidden": "true" }, h("i"), h("i"), h("i")),
      h("span", { class: "msg-time" }, "writing…"),
    ),
    body,
  );
  node.body = body;
  return node;
}
