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
/** zod re-exports every locale as `z.locales` (~300 KB of the bundle: ~15 ms of compiling
 * at each start). Nothing here asks for another language: zod's default English (which
 * its schemas import themselves) stays, the others are left out. */
const englishOnly = {
  name: "oar-zod-english",
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer) ? { path: join(dirname(args.importer), "..", "locales", "en.js"), namespace: "oar-zod-english" } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "oar-zod-english" }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)};`,
      loader: "js",
      resolveDir: dirname(args.path),
    }));
  },
};
/** A module the relay needs only once some worker runs, loaded then rather than at every
 * start: its importer in the relay (`importer`) gets a stand-in with the same exports that
 * evaluates the real module on first use (a module esbuild bundles through require() runs
 * only when first required). Functions and objects are forwarded (calls, `new`, members,
 * instanceof); plain constants are the values the module exports. Used for the ACP SDK:
 * its ~400 zod schemas were ~45 ms of each start and several MB of heap (issue 14). */
function lazyModule(specifier, importer) {
  const ns = `oar-lazy-${specifier.replace(/\W+/g, "-")}`;
  return {
    name: ns,
    setup(b) {
      b.onResolve({ filter: new RegExp(`^${specifier.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}$`) }, (args) =>
        args.namespace === "file" && args.importer.endsWith(importer) ? { path: specifier, namespace: ns } : undefined,
      );
      b.onLoad({ filter: /.*/, namespace: ns }, async () => {
        const real = await import(specifier);
        const lines = [`let m; const load = () => (m ??= require(${JSON.stringify(specifier)}));`];
        lines.push(`const fwd = (name, target) => new Proxy(target, {
          apply: (_, self, args) => Reflect.apply(load()[name], self, args),
          construct: (_, args) => Reflect.construct(load()[name], args),
          get: (_, p) => Reflect.get(load()[name], p),
          has: (_, p) => Reflect.has(load()[name], p),
          getPrototypeOf: () => Reflect.getPrototypeOf(load()[name]),
        });`);
        for (const [name, value] of Object.entries(real)) {
          if (!/^[A-Za-z_$][\w$]*$/.test(name)) continue;
          if (typeof value === "function") lines.push(`export const ${name} = fwd(${JSON.stringify(name)}, function () {});`);
          else if (value !== null && typeof value === "object") lines.push(`export const ${name} = fwd(${JSON.stringify(name)}, {});`);
          else if (["string", "number", "boolean"].includes(typeof value) || value === null) lines.push(`export const ${name} = ${JSON.stringify(value)};`);
          else throw new Error(`build: ${specifier} exports ${name} (${typeof value}), which the lazy stand-in cannot forward`);
        }
        return { contents: lines.join("\n"), loader: "js", resolveDir: root };
      });
    },
  };
}
const sourcesReadAt = Date.now();
const started = performance.now();
const entries = entryPoints();
// Built beside dist/ and swapped in whole: a relay starting meanwhile sees the old build or
// the new one, never half of one.
const dist = join(root, "dist");
const out = join(root, `.dist-${process.pid}`);
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const common = {
  outbase: join(root, "src"),
  outdir: out,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  external: ["better-sqlite3"],
  // Bundled CommonJS dependencies call require(); an ES module has none of its own.
  banner: { js: 'import { createRequire as __oarRequire } from "node:module"; const require = __oarRequire(import.meta.url);' },
  sourcemap: "linked",
  legalComments: "none",
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: "warning",
};
// The relay: modules it loads with import() (on first use: the MCP endpoint, the oar
// subcommands) go into chunks of their own, so a start compiles only what it runs. Built
// apart from the workers, so its start reads a few files, not chunks shared with them.
await build({
  ...common,
  entryPoints: entries.filter((e) => e.endsWith(join("src", "cli.ts"))),
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
  plugins: [noAjv, englishOnly, lazyModule("@agentclientprotocol/sdk/unstable", join("src", "providers", "acp-worker.ts"))],
});
// Each agent worker (and the keeper): one file each.
await build({ ...common, entryPoints: entries.filter((e) => !e.endsWith(join("src", "cli.ts"))), plugins: [noAjv, englishOnly] });
writeFileSync(join(out, "build-info.json"), JSON.stringify({ sourcesReadAt, entries: entries.map((e) => relative(root, e)) }, null, 2) + "\n");
if (!existsSync(join(out, "cli.js"))) throw new Error("build: cli.js was not written");
const old = join(root, `.dist-old-${process.pid}`);
if (existsSync(dist)) renameSync(dist, old);
renameSync(out, dist);
rmSync(old, { recursive: true, force: true });
console.error(`oar: built ${entries.length} program${entries.length === 1 ? "" : "s"} into dist/ in ${Math.round(performance.now() - started)} ms`);
