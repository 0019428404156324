// The Changes panel of a session: every file its agents' tool calls changed, from the diffs
// they reported (SHAPES.md `activity`), each file once: from the text before its first change
// to the text after its last, with its +/− counts; a file opens to its hunks.
import { h, fmtTime } from "./dom.js";
import { diffView, loadDiff, hunksOf, countsOf, countsNode } from "./diff-view.js";

/** path → { path, oldText, newText, edits, lastAt }, in the order files were first touched. */
export function filesChanged(d) {
  const files = new Map();
  for (const m of d.messages ?? []) {
    for (const a of m.meta?.activity ?? []) {
      for (const x of a.diffs ?? []) {
        const f = files.get(x.path);
        if (!f)
          files.set(x.path, {
            path: x.path,
            oldText: x.oldText ?? null,
            newText: x.newText,
            edits: 1,
            lastAt: m.createdAt,
          });
        else Object.assign(f, { newText: x.newText, edits: f.edits + 1, lastAt: m.createdAt });
      }
    }
  }
  return [...files.values()];
}

export function changesPanel(d) {
  const files = filesChanged(d);
  const list = h("ul", { class: "changes-list" });
  const head = h("h3", { class: "panel-sub" }, `Changes · ${files.length} file${files.length === 1 ? "" : "s"}`);
  if (!files.length)
    return h(
      "section",
      { class: "changes", "aria-label": "Changes" },
      head,
      h("p", { class: "empty-note" }, "No tool call of this session changed a file yet."),
    );
  for (const f of files) {
    const counts = h("span", { class: "diff-counts-slot" });
    const item = h(
      "details",
      { class: "change-file" },
      h(
        "summary",
        {},
        h("code", { class: "change-path", title: f.path }, f.path),
        f.oldText == null ? h("span", { class: "badge" }, "new file") : null,
        counts,
        h("span", { class: "field-help" }, `${f.edits} edit${f.edits === 1 ? "" : "s"} · ${fmtTime(f.lastAt)}`),
      ),
    );
    item.addEventListener(
      "toggle",
      () => {
        if (item.open && !item.querySelector(".diff-file")) item.append(diffView(f));
      },
      { once: false },
    );
    list.append(h("li", {}, item));
    const fill = (Diff) => counts.replaceChildren(countsNode(countsOf(hunksOf(Diff, f.oldText, f.newText))));
    if (f.oldText == null) fill(null);
    else loadDiff().then(fill, () => {});
  }
  return h("section", { class: "changes", "aria-label": "Changes" }, head, list);
}
