// One file's change as a line diff (the pinned `diff` package, loaded the first time a reply
// has a diff). Until it has loaded, and for a new file, the new text shows as it is.
import { h } from "./dom.js";

let loading = null;
function loadDiff() {
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

export function diffView(d) {
  const pre = h("pre", { class: "diff", tabindex: 0, "aria-label": `Changes to ${d.path}` });
  const box = h("div", { class: "diff-file" }, h("div", { class: "diff-path" }, h("code", {}, d.path), d.oldText == null ? h("span", { class: "badge" }, "new file") : null), pre);
  const plain = () => pre.replaceChildren(...String(d.newText ?? "").split("\n").map((l) => h("span", { class: "dl dl-add" }, `+ ${l}\n`)));
  plain();
  if (d.oldText == null) return box;
  loadDiff().then((Diff) => {
    const parts = Diff.diffLines(String(d.oldText), String(d.newText ?? ""));
    const lines = [];
    for (const p of parts) {
      const sign = p.added ? "+" : p.removed ? "-" : " ";
      const cls = p.added ? "dl dl-add" : p.removed ? "dl dl-del" : "dl";
      const rows = p.value.replace(/\n$/, "").split("\n");
      // Long unchanged stretches fold to their first and last lines.
      const shown = !p.added && !p.removed && rows.length > 7 ? [...rows.slice(0, 3), null, ...rows.slice(-3)] : rows;
      for (const r of shown) lines.push(r === null ? h("span", { class: "dl dl-skip" }, `  … ${rows.length - 6} unchanged lines\n`) : h("span", { class: cls }, `${sign} ${r}\n`));
    }
    pre.replaceChildren(...lines);
  }, () => {});
  return box;
}
