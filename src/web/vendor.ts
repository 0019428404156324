import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, basename } from "node:path";

// Libraries the page uses, copied from their pinned npm packages (package.json) at start,
// so the versions served are exactly the ones installed and no hand-written copy drifts:
// marked renders Markdown, DOMPurify sanitizes its HTML, diff makes file diffs.
// Served as /app/vendor-<name>.

const require = createRequire(import.meta.url);

/** The package's folder (node_modules/<name>), from whatever file it resolves to. */
function packageDir(name: string): string {
  let d = dirname(require.resolve(name));
  while (basename(d) !== name && dirname(d) !== d) d = dirname(d);
  return d;
}

const FILES: [served: string, pkg: string, file: string][] = [
  ["marked.js", "marked", "lib/marked.esm.js"],
  ["purify.js", "dompurify", "dist/purify.es.mjs"],
  // A classic script (UMD: sets window.Diff), loaded only when a reply has a file diff.
  ["diff.js", "diff", "dist/diff.min.js"],
];

export function vendorAssets(): [string, string][] {
  return FILES.map(([served, pkg, file]) => [
    served,
    // The source maps are not served: drop the comment that would ask for them.
    readFileSync(join(packageDir(pkg), file), "utf8").replace(/\n\/\/# sourceMappingURL=\S+\s*$/, "\n"),
  ]);
}
