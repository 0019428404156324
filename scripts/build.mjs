// Compiles the TypeScript sources into dist/ with esbuild: one bundle for the relay
// (dist/cli.js) and one per agent worker of our own (dist/providers/<name>/agent.js), so
// neither the relay nor its workers load a compiler at run time. Dependencies are bundled
// in too (fewer files to load at start); better-sqlite3 stays outside (a native addon).
// `node scripts/build.mjs [--if-stale]`: with --if-stale it does nothing when dist is fresh.
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { distFresh } from "./dist-fresh.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
if (process.argv.includes("--if-stale") && distFresh(root)) process.exit(0);

/** Our own programs: the relay, every agent worker under src/providers/, and the keeper
 * that holds them across relay restarts (providers/keeper/keeper-main.ts). */
function entryPoints() {
  const entries = [join(root, "src", "cli.ts")];
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/^(agent|worker|main|keeper-main)\.ts$/.test(e.name)) entries.push(p);
    }
  };
  walk(join(root, "src", "providers"));
  return entries;
}

const { build } = await import("esbuild");

/** The MCP SDK's server and client construct an Ajv JSON Schema validator up front; they use
 * it only to check elicitation answers (the relay never elicits) and tools' output schemas
 * (relay_tool has none). Ajv is ~100 ms of start-up and ~5 MB, so the bundle gets a
 * validator that says so if it is ever asked. */
const noAjv = {
  name: "oar-no-ajv",
  setup(b) {
    b.onResolve({ filter: /validation\/ajv-provider\.js$/ }, (args) =>
      args.importer.includes("@modelcontextprotocol") ? { path: "oar-no-ajv", namespace: "oar-no-ajv" } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "oar-no-ajv" }, () => ({
      contents: `export class AjvJsonSchemaValidator {
        getValidator() { throw new Error("OAR's build leaves out JSON Schema validation (Ajv): elicitation and tool output schemas are not used."); }
      }`,
      loader: "js",
    }));
  },
};
const sourcesReadAt = Date.now();
const started = performance.now();
const entries = entryPoints();
// Built beside dist/ and swapped in whole: a relay starting meanwhile sees the old build or
// the new one, never half of one.
const dist = join(root, "dist");
const out = join(root, `.dist-${process.pid}`);
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
await build({
  entryPoints: entries,
  outbase: join(root, "src"),
  outdir: out,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  external: ["better-sqlite3"],
  plugins: [noAjv],
  // Bundled CommonJS dependencies call require(); an ES module has none of its own.
  banner: { js: 'import { createRequire as __oarRequire } from "node:module"; const require = __oarRequire(import.meta.url);' },
  sourcemap: "linked",
  legalComments: "none",
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: "warning",
});
writeFileSync(join(out, "build-info.json"), JSON.stringify({ sourcesReadAt, entries: entries.map((e) => relative(root, e)) }, null, 2) + "\n");
if (!existsSync(join(out, "cli.js"))) throw new Error("build: cli.js was not written");
const old = join(root, `.dist-old-${process.pid}`);
if (existsSync(dist)) renameSync(dist, old);
renameSync(out, dist);
rmSync(old, { recursive: true, force: true });
console.error(`oar: built ${entries.length} program${entries.length === 1 ? "" : "s"} into dist/ in ${Math.round(performance.now() - started)} ms`);
