// A worktree session's part of the Changes panel (contract §10.1): its branch against base,
// ahead/behind, what it changed in the worktree (files with their hunks, from
// GET /api/sessions/:id/changes), overlaps with other sessions, the repository's merge queue,
// the Merge button, and on a conflict "Ask the agent to resolve".
import { h } from "./dom.js";
import { countsNode } from "./diff-view.js";

/** One file's hunks out of a unified diff (`diff --git a/x b/x` sections). */
export function filesOfDiff(diff) {
  const out = new Map();
  let cur = null;
  for (const line of String(diff ?? "").split("\n")) {
    const head = /^diff --git a\/(.*) b\/(.*)$/.exec(line);
    if (head) {
      cur = { path: head[2], hunks: [] };
      out.set(cur.path, cur);
      continue;
    }
    if (!cur) continue;
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
    if (hunk) cur.hunks.push({ oldStart: Number(hunk[1]), newStart: Number(hunk[2]), lines: [] });
    else if (cur.hunks.length && /^[-+ ]/.test(line)) cur.hunks.at(-1).lines.push(line);
  }
  return out;
}

function hunksNode(hunks) {
  const rows = [];
  for (const x of hunks) {
    rows.push(h("div", { class: "dl dl-hunk" }, `@@ -${x.oldStart} +${x.newStart} @@`));
    for (const l of x.lines)
      rows.push(
        h(
          "div",
          { class: `dl ${l[0] === "+" ? "dl-add" : l[0] === "-" ? "dl-del" : "dl-ctx"}` },
          `${l[0]} ${l.slice(1)}`,
        ),
      );
  }
  return h("div", { class: "diff-file" }, ...rows);
}

const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

function mergeOutcome(m) {
  const r = m.result;
  if (!r) return m.status === "running" ? "merging now" : "queued";
  if (r.status === "merged")
    return `merged into ${m.into} as ${r.commit.slice(0, 10)}${r.fastForward ? " (fast-forward)" : ""}`;
  if (r.status === "conflict") return `conflict with ${m.into} in ${r.files.join(", ")}; nothing changed`;
  if (r.status === "tests_failed")
    return `tests failed${r.counts ? ` (${r.counts.failed} failed, ${r.counts.passed} passed)` : ""}; nothing changed`;
  return r.error ?? r.status;
}

/** The worktree section; `ctx.call` reaches the owner API, `ctx.changed` redraws. */
export function worktreeSection(d, ctx) {
  const w = d.worktree;
  const path = `/api/sessions/${encodeURIComponent(d.id)}`;
  const status = h("p", { class: "field-help", role: "status" });
  const files = h("ul", { class: "changes-list" });
  const counts = h("p", { class: "field-help" }, "Reading the worktree…");
  ctx.call("GET", `${path}/changes`, undefined, { quiet: true }).then(
    (c) => {
      counts.textContent = `${plural(c.ahead, "commit")} ahead, ${c.behind} behind ${w.base}${c.dirty ? " · uncommitted changes" : ""} · ${plural(c.files.length, "file")}`;
      const hunks = filesOfDiff(c.diff);
      files.replaceChildren(
        ...c.files.map((f) => {
          const item = h(
            "details",
            { class: "change-file" },
            h(
              "summary",
              {},
              h("code", { class: "change-path", title: f.path }, f.path),
              h("span", { class: "badge" }, f.status),
              countsNode({ added: f.added, removed: f.removed }),
            ),
          );
          item.addEventListener("toggle", () => {
            if (item.open && !item.querySelector(".diff-file")) item.append(hunksNode(hunks.get(f.path)?.hunks ?? []));
          });
          return h("li", {}, item);
        }),
      );
    },
    (e) => (counts.textContent = e.message),
  );

  const overlaps = (d.overlaps ?? []).map((o) =>
    h(
      "p",
      { class: "overlap-warning", role: "note" },
      "⚠ Overlap with ",
      o.session
        ? h("a", { href: `#session=${encodeURIComponent(o.session)}` }, o.title ?? o.session)
        : `uncommitted changes in the main folder ${o.mainFolder}`,
      `: ${o.paths.join(", ")}`,
    ),
  );

  const merge = h(
    "button",
    {
      class: "btn",
      type: "button",
      title: `Merge ${w.branch} into ${w.base} through the merge queue`,
      onclick: async () => {
        merge.disabled = true;
        status.textContent = "Merging…";
        await ctx.call("POST", `${path}/merge`, { wait_seconds: 30 }).then(
          (r) =>
            (status.textContent =
              r.status === "queued"
                ? `Queued (position ${r.queuePosition})`
                : mergeOutcome({ into: w.base, status: r.status, result: r })),
          (e) => (status.textContent = e.message),
        );
        merge.disabled = false;
        ctx.changed({ sessionId: d.id, force: true });
      },
    },
    "Merge",
  );

  const last = (d.merges ?? [])[0];
  const resolve =
    last?.result?.status === "conflict"
      ? h(
          "button",
          {
            class: "btn",
            type: "button",
            onclick: async () => {
              const text = `Merging your branch ${w.branch} into ${last.into} conflicts in ${last.result.files.join(", ")}. Merge ${last.into} into your branch, resolve the conflicts in those files, run the tests and commit.`;
              await ctx.call("POST", `${path}/messages`, { text }).then(
                () => (status.textContent = "Asked the agent to resolve the conflict."),
                (e) => (status.textContent = e.message),
              );
              ctx.changed({ sessionId: d.id, force: true });
            },
          },
          "Ask the agent to resolve",
        )
      : null;
  const queue = (d.mergeQueue ?? []).length
    ? h(
        "ol",
        { class: "merge-queue", "aria-label": "Merge queue" },
        ...d.mergeQueue.map((m) =>
          h(
            "li",
            {},
            `${m.branch} → ${m.into}: ${m.status === "running" ? "merging now" : `waiting (${m.queuePosition})`}`,
          ),
        ),
      )
    : h("p", { class: "field-help" }, "The merge queue of this repository is empty.");

  return h(
    "section",
    { class: "worktree", "aria-label": "Worktree" },
    h("h3", { class: "panel-sub" }, "Branch ", h("code", {}, w.branch), " from ", h("code", {}, w.base)),
    h("p", { class: "field-help" }, `Worktree ${w.path} of ${w.repo}`),
    counts,
    ...overlaps,
    files,
    h("div", { class: "worktree-actions" }, merge, resolve),
    last ? h("p", { class: "field-help" }, `Last merge: ${mergeOutcome(last)}`) : null,
    status,
    queue,
  );
}
