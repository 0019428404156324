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
      /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer)
        ? { path: join(dirname(args.importer), "..", "locales", "en.js"), namespace: "oar-zod-english" }
        : undefined,
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
          if (typeof value === "function")
            lines.push(`export const ${name} = fwd(${JSON.stringify(name)}, function () {});`);
          else if (value !== null && typeof value === "object")
            lines.push(`export const ${name} = fwd(${JSON.stringify(name)}, {});`);
          else if (["string", "number", "boolean"].includes(typeof value) || value === null)
            lines.push(`export const ${name} = ${JSON.stringify(value)};`);
          else
            throw new Error(
              `build: ${specifier} exports ${name} (${typeof value}), which the lazy stand-in cannot forward`,
            );
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
  banner: {
    js: 'import { createRequire as __oarRequire } from "node:module"; const require = __oarRequire(import.meta.url);',
  },
  sourcemap: "linked",
  legalComments: "none",
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: "warning",
};
// The relay: one CommonJS file (dist/relay.js) that dist/cli.js runs through V8's code cache
// (Node 20 has no compile cache for ES modules): after the first start, a start neither
// compiles the bundle nor the functions its start runs (issue 14). What it loads with
// import() (the MCP endpoint, the oar subcommands) is evaluated on first use.
const buildId = `${Date.now().toString(36)}${process.pid.toString(36)}`;
await build({
  ...common,
  outbase: undefined,
  outdir: undefined,
  outfile: join(out, "relay.js"),
  entryPoints: entries.filter((e) => e.endsWith(join("src", "cli.ts"))),
  format: "cjs",
  // An ES module's import.meta, in a CommonJS file: the same values, from its path.
  define: { "import.meta.url": "__oarMetaUrl", "import.meta.resolve": "__oarMetaResolve" },
  banner: {
    js: 'const __oarMetaUrl = require("node:url").pathToFileURL(__filename).href; const __oarMetaResolve = (s) => require("node:url").pathToFileURL(require.resolve(s)).href;',
  },
  plugins: [
    noAjv,
    englishOnly,
    lazyModule("@agentclientprotocol/sdk/unstable", join("src", "providers", "acp-worker.ts")),
  ],
});
writeFileSync(
  join(out, "cli.js"),
  `// Written by scripts/build.mjs: runs the relay (relay.js, CommonJS) with V8's code cache.
// The cache is made by a start of this build once it is serving (it then holds the code the
// start ran) and named by the build, so a relay of an older build never feeds its cache to
// this one (V8 checks a cache against the source's length only).
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Script } from "node:vm";

const file = join(dirname(fileURLToPath(import.meta.url)), "relay.js");
const cacheFile = join(dirname(file), "relay-${buildId}.cache");
let cachedData;
try {
  cachedData = readFileSync(cacheFile);
} catch {}
const source = "(function (exports, require, module, __filename, __dirname) {\\"use strict\\";" + readFileSync(file, "utf8") + "\\n})";
const script = new Script(source, { filename: file, cachedData });
if (!cachedData || script.cachedDataRejected) {
  globalThis.__oarServing = () =>
    setImmediate(() => {
      try {
        const tmp = \`\${cacheFile}.\${process.pid}\`;
        writeFileSync(tmp, script.createCachedData());
        renameSync(tmp, cacheFile);
      } catch {}
    });
}
const module = { exports: {} };
script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file));
`,
);
// Each agent worker (and the keeper): one file each.
await build({
  ...common,
  entryPoints: entries.filter((e) => !e.endsWith(join("src", "cli.ts"))),
  plugins: [noAjv, englishOnly],
});
writeFileSync(
  join(out, "build-info.json"),
  `${JSON.stringify({ sourcesReadAt, entries: entries.map((e) => relative(root, e)) }, null, 2)}\n`,
);
if (!existsSync(join(out, "relay.js"))) throw new Error("build: relay.js was not written");
const old = join(root, `.dist-old-${process.pid}`);
if (existsSync(dist)) renameSync(dist, old);
renameSync(out, dist);
rmSync(old, { recursive: true, force: true });
console.error(
  `oar: built ${entries.length} program${entries.length === 1 ? "" : "s"} into dist/ in ${Math.round(performance.now() - started)} ms`,
);
