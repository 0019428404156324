// One file's change as hunks: only the changed lines and 3 lines of context around them,
// each row with its old and new line numbers, and the file's +/− counts in its header (the
// pinned `diff` package, loaded the first time a view shows a diff). A new file shows its
// lines as added.
import { h } from "./dom.js";

let loading = null;
export function loadDiff() {
  if (window.Diff) return Promise.resolve(window.Diff);
  loading ??= new Promise((resolve, reject) => {
    const s = document.createElement("script");
    s.src = "/app/vendor-diff.js";
    s.onload = () => resolve(window.Diff);
    s.onerror = () => reject(new Error("diff view did not load"));
    document.head.append(s);
  });
  return loading;
}

const NEW_FILE_LINES = 400;

/** Hunks of a change: [{ oldStart, newStart, lines: ["+x", "-y", " z"] }]. */
export function hunksOf(Diff, oldText, newText) {
  if (oldText == null) {
    const lines = String(newText ?? "")
      .replace(/\n$/, "")
      .split("\n");
    return [{ oldStart: 0, newStart: 1, lines: lines.map((l) => `+${l}`) }];
  }
  const p = Diff.structuredPatch("a", "b", String(oldText), String(newText ?? ""), "", "", { context: 3 });
  return p.hunks.map((x) => ({
    oldStart: x.oldStart,
    newStart: x.newStart,
    lines: x.lines.filter((l) => !l.startsWith("\\")),
  }));
}

export function countsOf(hunks) {
  let added = 0;
  let removed = 0;
  for (const x of hunks) for (const l of x.lines) l[0] === "+" ? added++ : l[0] === "-" ? removed++ : 0;
  return { added, removed };
}

export const countsNode = ({ added, removed }) =>
  h(
    "span",
    { class: "diff-counts", "aria-label": `${added} added, ${removed} removed` },
    h("span", { class: "n-add" }, `+${added}`),
    " ",
    h("span", { class: "n-del" }, `−${removed}`),
  );

function hunkRows(x) {
  const rows = [
    h(
      "span",
      { class: "dl dl-hunk" },
      h("span", { class: "ln" }, "…"),
      h("span", { class: "ln" }, "…"),
      h("span", { class: "dt" }, `@@ line ${x.newStart} @@`),
    ),
  ];
  let o = x.oldStart;
  let n = x.newStart;
  const lines = x.lines.length > NEW_FILE_LINES ? x.lines.slice(0, NEW_FILE_LINES) : x.lines;
  for (const l of lines) {
    const sign = l[0];
    const text = l.slice(1);
    const cls = sign === "+" ? "dl dl-add" : sign === "-" ? "dl dl-del" : "dl";
    const oldNo = sign === "+" ? "" : String(o++);
    const newNo = sign === "-" ? "" : String(n++);
    rows.push(
      h(
        "span",
        { class: cls },
        h("span", { class: "ln" }, oldNo),
        h("span", { class: "ln" }, newNo),
        h("span", { class: "dt" }, `${sign === " " ? " " : sign} ${text}`),
      ),
    );
  }
  if (x.lines.length > lines.length)
    rows.push(
      h(
        "span",
        { class: "dl dl-skip" },
        h("span", { class: "ln" }),
        h("span", { class: "ln" }),
        h("span", { class: "dt" }, `… ${x.lines.length - lines.length} more lines`),
      ),
    );
  return rows;
}

/** d: { path, oldText (null for a new file), newText }. */
export function diffView(d, opts = {}) {
  const pre = h("pre", { class: "diff", tabindex: 0, "aria-label": `Changes to ${d.path}` });
  const counts = h("span", { class: "diff-counts-slot" });
  const box = h(
    "div",
    { class: "diff-file" },
    h(
      "div",
      { class: "diff-path" },
      h("code", { title: d.path }, d.path),
      d.oldText == null ? h("span", { class: "badge" }, "new file") : null,
      counts,
      opts.extra ?? null,
    ),
    pre,
  );
  const draw = (Diff) => {
    const hunks = hunksOf(Diff, d.oldText, d.newText);
    counts.replaceChildren(countsNode(countsOf(hunks)));
    pre.replaceChildren(
      ...(hunks.length ? hunks.flatMap(hunkRows) : [h("span", { class: "dl dl-skip" }, "No change.")]),
    );
  };
  if (d.oldText == null) draw(null);
  else loadDiff().then(draw, () => pre.replaceChildren(h("span", { class: "dl" }, String(d.newText ?? ""))));
  return box;
}
