// Background tasks and subagents of the open session, with their console on demand.
import { h, fmtTime } from "./dom.js";

const open = new Set();

export function tasksPanel(slot, d, ctx) {
  const tasks = d.tasks ?? [];
  if (!tasks.length) {
    slot.replaceChildren();
    return;
  }
  const running = tasks.filter((t) => t.status === "running").length;
  const key = JSON.stringify(tasks);
  if (slot.dataset.key === key) return;
  slot.dataset.key = key;
  const details = h("details", { class: "tasks", open: open.has(d.id) || running > 0 },
    h("summary", {}, `Tasks · ${running} running · ${tasks.length - running} finished`),
    h("ul", { class: "task-list" }, tasks.map((t) => taskRow(d.id, t, ctx))));
  details.addEventListener("toggle", () => (details.open ? open.add(d.id) : open.delete(d.id)));
  slot.replaceChildren(details);
}

function taskRow(sessionId, t, ctx) {
  const out = h("pre", { class: "task-output", hidden: true });
  const show = async () => {
    if (!out.hidden) {
      out.hidden = true;
      return;
    }
    try {
      const r = await ctx.call("GET", `/api/sessions/${encodeURIComponent(sessionId)}/tasks/${encodeURIComponent(t.taskId)}/output?lines=200`);
      out.textContent = (r.truncated ? "…\n" : "") + (r.lines.join("\n") || "(no output)");
      out.hidden = false;
    } catch {}
  };
  const icon = t.type === "subagent" ? "🤖" : "⚙️";
  const status = t.status === "running" ? "running" : `${t.status}${t.exitCode != null ? ` (exit ${t.exitCode})` : ""}`;
  return h("li", { class: `task task-${t.status}` },
    h("span", { "aria-hidden": "true" }, icon), " ",
    h("span", { class: "task-desc" }, t.description || t.taskId),
    h("span", { class: "task-status" }, status),
    h("span", { class: "task-time" }, fmtTime(t.startedAt)),
    t.output ? h("button", { class: "btn btn-small", type: "button", onclick: show }, "Output") : null,
    out);
}
