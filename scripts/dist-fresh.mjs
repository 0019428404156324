// Is dist/ (the compiled bundle) built from the sources as they are now? bin/oar runs
// dist only then, and `npm start` rebuilds when not. Plain JavaScript: it runs before
// anything can compile TypeScript.
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** Newest modification time (ms) of what goes into a build: TypeScript under src/, and the
 * package files that pin the dependencies bundled in. */
export function newestSource(root) {
  let newest = 0;
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".ts")) newest = Math.max(newest, statSync(p).mtimeMs);
    }
  };
  walk(join(root, "src"));
  for (const f of ["package.json", "package-lock.json"])
    if (existsSync(join(root, f))) newest = Math.max(newest, statSync(join(root, f)).mtimeMs);
  return newest;
}

/** The build's record: when it started reading the sources, and its entry points. */
export function buildInfo(root) {
  try {
    return JSON.parse(readFileSync(join(root, "dist", "build-info.json"), "utf8"));
  } catch {
    return null;
  }
}

/** Fresh when a build exists, has the relay's entry point, and started after the newest source change. */
export function distFresh(root) {
  const info = buildInfo(root);
  if (!info || typeof info.sourcesReadAt !== "number" || !existsSync(join(root, "dist", "cli.js"))) return false;
  return newestSource(root) <= info.sourcesReadAt;
}
