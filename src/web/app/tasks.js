// Background tasks and subagents of the open session, with their console on demand. An open
// console follows new lines (read again each second while its task runs, and once more when
// it ends) and stays open until you close it, also across the live re-renders.
import { h, fmtTime, icon } from "./dom.js";

const open = new Set();
/** "session/task" → { pre, button, timer, running } kept across renders */
const consoles = new Map();

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
  const details = h(
    "details",
    { class: "tasks", open: open.has(d.id) || running > 0 },
    h(
      "summary",
      {},
      `Tasks · ${running} running · ${tasks.length - running} finished`,
      tasks.some((t) => t.status === "failed")
        ? h("span", { class: "task-failed-note" }, ` · ${tasks.filter((t) => t.status === "failed").length} failed`)
        : null,
    ),
    h(
      "ul",
      { class: "task-list" },
      tasks.map((t) => taskRow(d.id, t, ctx)),
    ),
  );
  details.addEventListener("toggle", () => (details.open ? open.add(d.id) : open.delete(d.id)));
  slot.replaceChildren(details);
}

async function read(c, path, ctx) {
  try {
    const r = await ctx.call("GET", path, undefined, { quiet: true });
    const atEnd = c.pre.scrollHeight - c.pre.scrollTop - c.pre.clientHeight < 24;
    const text = (r.truncated ? "…\n" : "") + (r.lines.join("\n") || "(no output)");
    if (c.pre.textContent !== text) {
      c.pre.textContent = text;
      if (atEnd || c.first) c.pre.scrollTop = c.pre.scrollHeight;
    }
    c.first = false;
    c.running = r.task?.status === "running";
  } catch {}
}

function follow(c, path, ctx) {
  clearInterval(c.timer);
  c.timer = setInterval(async () => {
    if (c.pre.hidden || !c.pre.isConnected) return stop(c);
    await read(c, path, ctx);
    if (!c.running) stop(c);
  }, 1000);
}

function stop(c) {
  clearInterval(c.timer);
  c.timer = null;
}

function taskRow(sessionId, t, ctx) {
  const k = `${sessionId}/${t.taskId}`;
  const path = `/api/sessions/${encodeURIComponent(sessionId)}/tasks/${encodeURIComponent(t.taskId)}/output?lines=500`;
  let c = consoles.get(k);
  if (!c) {
    c = {
      pre: h("pre", {
        class: "task-output",
        hidden: true,
        tabindex: 0,
        role: "log",
        "aria-label": `Output of ${t.description || t.taskId}`,
      }),
      timer: null,
      running: true,
      first: true,
    };
    consoles.set(k, c);
  }
  const button = h(
    "button",
    { class: "btn btn-small", type: "button", "aria-expanded": String(!c.pre.hidden) },
    c.pre.hidden ? "Output" : "Close output",
  );
  button.addEventListener("click", async () => {
    if (!c.pre.hidden) {
      c.pre.hidden = true;
      stop(c);
    } else {
      c.pre.hidden = false;
      c.first = true;
      await read(c, path, ctx);
      if (t.status === "running") follow(c, path, ctx);
    }
    button.textContent = c.pre.hidden ? "Output" : "Close output";
    button.setAttribute("aria-expanded", String(!c.pre.hidden));
  });
  // A task that ended while its console was open: the last lines, then it stays as it is.
  if (!c.pre.hidden && t.status !== "running") {
    stop(c);
    read(c, path, ctx);
  } else if (!c.pre.hidden && t.status === "running" && !c.timer) follow(c, path, ctx);
  const status = t.status === "running" ? "running" : `${t.status}${t.exitCode != null ? ` (exit ${t.exitCode})` : ""}`;
  return h(
    "li",
    { class: `task task-${t.status}` },
    icon(t.status === "failed" ? "triangle-alert" : t.type === "subagent" ? "bot" : "cog"),
    h("span", { class: "task-desc" }, t.description || t.taskId),
    h("span", { class: "task-status" }, status),
    h("span", { class: "task-time" }, fmtTime(t.startedAt)),
    t.output ? button : null,
    c.pre,
  );
}
