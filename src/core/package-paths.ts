import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

// Where this package's own files are, whether the process runs the compiled bundle
// (dist/*.js, built by scripts/build.mjs) or the TypeScript sources through tsx. Paths
// relative to a module stop meaning anything once modules are bundled into one file, so
// code finds its files from the package root instead.

const HERE = fileURLToPath(import.meta.url);

/** This process runs the compiled bundle (bin/oar picked dist/ because it was fresh). */
export const FROM_DIST = HERE.endsWith(".js");

function packageRoot(from: string): string {
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json")) && existsSync(join(dir, "src"))) return dir;
    if (dirname(dir) === dir) throw new Error(`OAR's package root was not found above ${from}`);
  }
}

export const ROOT = packageRoot(HERE);

/** A file of the package by its path from the root (e.g. `src/web/index.html`). */
export const packageFile = (rel: string): string => join(ROOT, rel);

/** V8 flags for our own workers: one small process per session, mostly waiting on the
 * network or a pipe. A 1 MB young generation and no V8 helper threads (GC and compiler
 * work on the main thread) keep each near 50 MB instead of ~65 MB (bench/RESULTS.md). */
export const WORKER_FLAGS = ["--max-semi-space-size=1", "--single-threaded"];

/** How to start one of our own node programs (an agent worker) given by its source path:
 * from dist/ without a compiler in the process when the relay itself runs from dist (the
 * same build made both), else the source through tsx. */
export function ownProgram(srcRel: string): { command: string; args: string[] } {
  if (FROM_DIST) {
    const js = join(ROOT, "dist", srcRel.replace(/^src\//, "").replace(/\.ts$/, ".js"));
    if (existsSync(js)) return { command: process.execPath, args: [...WORKER_FLAGS, js] };
  }
  return { command: process.execPath, args: ["--import", import.meta.resolve("tsx"), join(ROOT, srcRel)] };
}
