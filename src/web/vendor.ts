import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, basename } from "node:path";

// Libraries the page uses, copied from their pinned npm packages (package.json) when the page
// is first asked for, so the versions served are exactly the ones installed and no
// hand-written copy drifts: marked renders Markdown, DOMPurify sanitizes its HTML, diff makes
// file diffs, highlight.js colours code, uPlot draws the usage chart, and lucide's icons
// (only those the page uses) make one SVG sprite inlined in the page. Served as
// /app/vendor-<name>; highlight.js, uPlot and diff load only when a view needs them.

const require = createRequire(import.meta.url);

/** The package's folder (node_modules/<name>), from whatever file it resolves to. */
function packageDir(name: string): string {
  let d = dirname(require.resolve(name));
  while (basename(d) !== name && dirname(d) !== d) d = dirname(d);
  return d;
}

const read = (pkg: string, file: string) =>
  readFileSync(join(packageDir(pkg), file), "utf8").replace(/\n\/\/# sourceMappingURL=\S+\s*$/, "\n");

const FILES: [served: string, pkg: string, file: string][] = [
  ["marked.js", "marked", "lib/marked.esm.js"],
  ["purify.js", "dompurify", "dist/purify.es.mjs"],
  // A classic script (UMD: sets window.Diff), loaded only when a reply has a file diff.
  ["diff.js", "diff", "dist/diff.min.js"],
  ["uplot.js", "uplot", "dist/uPlot.esm.js"],
  ["uplot.css", "uplot", "dist/uPlot.min.css"],
];

/** The languages code blocks are coloured in (the rest stay plain). */
const LANGUAGES = [
  "bash",
  "c",
  "cpp",
  "css",
  "diff",
  "dockerfile",
  "go",
  "ini",
  "java",
  "javascript",
  "json",
  "markdown",
  "python",
  "rust",
  "shell",
  "sql",
  "typescript",
  "xml",
  "yaml",
];

/** highlight.js's core (CommonJS) and its language modules as one ES module: each language
 * file is one function exported as default, registered here in its own block scope. */
function highlightModule(): string {
  const core = read("highlight.js", "lib/core.js");
  const langs = LANGUAGES.map((l) => {
    const src = read("highlight.js", `es/languages/${l}.js`);
    const m = /export \{ (\w+) as default \};\s*$/.exec(src);
    if (!m) throw new Error(`highlight.js language ${l} has an unexpected shape`);
    return `{\n${src.slice(0, m.index)}\nhljs.registerLanguage(${JSON.stringify(l)}, ${m[1]});\n}`;
  });
  return `const module = { exports: {} };\n${core}\nconst hljs = module.exports;\n${langs.join("\n")}\nexport default hljs;\n`;
}

/** The icons the page draws (lucide names). */
export const ICONS = [
  "bell",
  "bell-off",
  "radio-tower",
  "alarm-clock",
  "eye",
  "circle-help",
  "search",
  "copy",
  "check",
  "x",
  "menu",
  "square",
  "archive",
  "archive-restore",
  "trash-2",
  "power",
  "file-text",
  "pencil",
  "terminal",
  "brain",
  "globe",
  "wrench",
  "list-checks",
  "bot",
  "cog",
  "file-diff",
  "chart-column",
  "keyboard",
  "plus",
  "inbox",
  "settings",
  "radio",
  "external-link",
  "triangle-alert",
  "ellipsis",
  "clock",
  "circle-x",
  "circle-check",
  "git-compare",
  "copy-check",
  "arrow-right",
];

/** One <svg> of <symbol>s (id "i-<name>"), inlined in the page: <use href="#i-bell">. */
export function iconSprite(): string {
  const symbols = ICONS.map((name) => {
    const svg = read("lucide-static", `icons/${name}.svg`);
    const inner = svg
      .slice(svg.indexOf(">", svg.indexOf("<svg")) + 1, svg.lastIndexOf("</svg>"))
      .replace(/\s*\n\s*/g, "");
    return `<symbol id="i-${name}" viewBox="0 0 24 24">${inner}</symbol>`;
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" class="sprite" width="0" height="0" aria-hidden="true"><!-- lucide-static (ISC) -->${symbols.join("")}</svg>`;
}

export function vendorAssets(): [string, string][] {
  return [
    ...FILES.map(([served, pkg, file]): [string, string] => [served, read(pkg, file)]),
    ["hljs.js", highlightModule()],
  ];
}
