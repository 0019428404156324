#!/usr/bin/env node
// The layer rule of src/ (issue 19), checked without a compiler API: TypeScript 7 is the native
// compiler and has none, so this reads the import statements itself. A file may import only
// files of its own layer or of a lower one — type-only imports count, because a type import
// still ties the two folders' designs together — and no import cycle may exist anywhere.
//
//   node scripts/check-layers.mjs [--src DIR] [--json]
//
// Prints each violation as `file:line → target` with the rule it breaks; exits 1 on any.

import { readdirSync, readFileSync, statSync, existsSync } from "node:fs";
import { join, dirname, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

/** Lowest first. A folder (or single file) under src/ belongs to exactly one layer; the longest
 * matching prefix wins, so one file can be placed apart from its folder while it moves. */
export const LAYERS = [
  { name: "base", paths: ["core", "store"] },
  {
    name: "domains",
    paths: [
      "sessions",
      "providers",
      "groups",
      "watching",
      "schedules",
      "questions",
      "approvals",
      "tasks",
      "billing",
      "cloud",
      "pairing",
      "ops",
      "notify",
      "budgets",
      "worktrees",
    ],
  },
  { name: "actions", paths: ["actions"] },
  { name: "surfaces", paths: ["api", "mcp", "peer", "web"] },
  // The composition root: builds and wires the domains, serves the surfaces.
  { name: "app", paths: ["app"] },
  { name: "entry", paths: ["cli.ts"] },
];

const SOURCE = /\.(ts|mts|cts|js|mjs|cjs)$/;

export function layerOf(relPath, layers = LAYERS) {
  let best = null;
  for (const [rank, layer] of layers.entries()) {
    for (const p of layer.paths) {
      if ((relPath === p || relPath.startsWith(`${p}/`)) && (!best || p.length > best.prefix.length)) {
        best = { rank, name: layer.name, prefix: p };
      }
    }
  }
  return best;
}

// ---------------------------------------------------------------------------------------------
// Reading imports: a small scanner that skips comments, strings, template literals and regex
// literals, so an "import … from" inside any of them is not taken for a real one.

const REGEX_AFTER_WORD = new Set([
  "return",
  "typeof",
  "instanceof",
  "in",
  "of",
  "new",
  "delete",
  "void",
  "throw",
  "case",
  "do",
  "else",
  "yield",
  "await",
]);

/** Returns the source with comments blanked and every string's body replaced by spaces, plus
 * the strings themselves keyed by the offset of their opening quote. Newlines are kept so
 * offsets map to the same line numbers. */
export function mask(src) {
  const out = src.split("");
  const strings = new Map();
  const blank = (from, to) => {
    for (let k = from; k < to; k++) if (out[k] !== "\n") out[k] = " ";
  };
  // Each entry is a template literal we are inside an `${…}` of, with the brace depth there.
  const templates = [];
  let depth = 0;
  let lastSig = ""; // last significant character of code, to tell a regex from a division
  let lastWord = "";
  let i = 0;
  const n = src.length;

  const readQuoted = (q) => {
    const start = i;
    i++;
    while (i < n && src[i] !== q) {
      if (src[i] === "\\") i++;
      else if (src[i] === "\n") break; // unterminated: stop at the line end
      i++;
    }
    strings.set(start, src.slice(start + 1, i));
    blank(start + 1, i);
    i++;
  };
  // Reads template text from i (just after ` or a closing }) up to its end or the next ${.
  const readTemplate = () => {
    const start = i;
    while (i < n) {
      if (src[i] === "\\") {
        i += 2;
        continue;
      }
      if (src[i] === "`") {
        blank(start, i);
        i++;
        return;
      }
      if (src[i] === "$" && src[i + 1] === "{") {
        blank(start, i);
        i += 2;
        templates.push(depth);
        depth++;
        return;
      }
      i++;
    }
    blank(start, i);
  };

  while (i < n) {
    const c = src[i];
    const d = src[i + 1];
    if (c === "/" && d === "/") {
      const end = src.indexOf("\n", i);
      const stop = end === -1 ? n : end;
      blank(i, stop);
      i = stop;
      continue;
    }
    if (c === "/" && d === "*") {
      const end = src.indexOf("*/", i + 2);
      const stop = end === -1 ? n : end + 2;
      blank(i, stop);
      i = stop;
      continue;
    }
    if (c === '"' || c === "'") {
      readQuoted(c);
      lastSig = "a";
      lastWord = "";
      continue;
    }
    if (c === "`") {
      i++;
      readTemplate();
      lastSig = "a";
      lastWord = "";
      continue;
    }
    if (c === "/") {
      const regexHere = lastSig === "" || "(,=:[!&|?{};+-*%<>~^".includes(lastSig) || REGEX_AFTER_WORD.has(lastWord);
      if (regexHere) {
        const start = i;
        i++;
        let inClass = false;
        while (i < n && src[i] !== "\n") {
          if (src[i] === "\\") {
            i += 2;
            continue;
          }
          if (src[i] === "[") inClass = true;
          else if (src[i] === "]") inClass = false;
          else if (src[i] === "/" && !inClass) break;
          i++;
        }
        blank(start + 1, i);
        i++;
        while (i < n && /[a-z]/i.test(src[i])) i++;
        lastSig = "a";
        lastWord = "";
        continue;
      }
    }
    if (c === "{") depth++;
    if (c === "}") {
      depth--;
      if (templates.length && templates[templates.length - 1] === depth) {
        templates.pop();
        i++;
        readTemplate();
        lastSig = "a";
        lastWord = "";
        continue;
      }
    }
    if (/[A-Za-z0-9_$]/.test(c)) {
      let j = i;
      while (j < n && /[A-Za-z0-9_$]/.test(src[j])) j++;
      lastWord = src.slice(i, j);
      lastSig = "a";
      i = j;
      continue;
    }
    if (!/\s/.test(c)) {
      lastSig = c;
      lastWord = "";
    }
    i++;
  }
  return { code: out.join(""), strings };
}

// Over the masked code a string literal is a quote, blanks, a quote. The clause before `from`
// cannot hold a quote or a semicolon, so one statement never runs into the next.
const STR = String.raw`(["'])[ ]*\3`; // group 3 in every pattern below
const PATTERNS = [
  // import x from "m"; import type { X } from "m"; import * as m from "m"; import x, { y } from "m"
  {
    re: new RegExp(String.raw`(?<![\w$.])import(\s+type)?(?![\w$])\s*([\w$*{][^;"'()]*?)\bfrom\s*` + STR, "g"),
    kind: "import",
  },
  // export { x } from "m"; export type { X } from "m"; export * from "m"; export * as m from "m"
  {
    re: new RegExp(
      String.raw`(?<![\w$.])export(\s+type)?\s*(\*(?:\s*as\s+[\w$]+)?|\{[^;"'()}]*\})\s*from\s*` + STR,
      "g",
    ),
    kind: "export",
  },
  // import "m" (side effects only)
  { re: new RegExp(String.raw`(?<![\w$.])import\s*()()` + STR, "g"), kind: "side-effect" },
  // import("m") — a lazy runtime import, or `typeof import("m")` in a type
  { re: new RegExp(String.raw`(?<![\w$.])import\s*\(\s*()()` + STR, "g"), kind: "dynamic" },
];

/** The imports of one file: { spec, line, typeOnly, kind }. */
export function readImports(src) {
  const { code, strings } = mask(src);
  const lineStarts = [0];
  for (let k = 0; k < code.length; k++) if (code.charCodeAt(k) === 10) lineStarts.push(k + 1);
  const lineAt = (offset) => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
  const found = [];
  for (const { re, kind } of PATTERNS) {
    for (const m of code.matchAll(re)) {
      // The match ends with the specifier's closing quote; its opening quote is the one before.
      const close = m[0].length - 1;
      const open = m[0].lastIndexOf(m[0][close], close - 1);
      const spec = strings.get(m.index + open);
      if (spec === undefined) continue;
      const clause = (m[2] ?? "").trim();
      let typeOnly = Boolean(m[1]);
      if (!typeOnly && clause.startsWith("{")) {
        // import { type A, type B } from "m": only types, though not written `import type`
        const names = clause
          .slice(1, -1)
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean);
        typeOnly = names.length > 0 && names.every((s) => /^type\s/.test(s));
      }
      if (kind === "dynamic") typeOnly = /typeof\s*$/.test(code.slice(Math.max(0, m.index - 20), m.index));
      found.push({ spec, line: lineAt(m.index), typeOnly, kind });
    }
  }
  return found.sort((a, b) => a.line - b.line);
}

// ---------------------------------------------------------------------------------------------
// The file graph.

function listSources(dir) {
  const files = [];
  const walk = (d) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (SOURCE.test(name) && !name.endsWith(".d.ts")) files.push(p);
    }
  };
  walk(dir);
  return files;
}

function resolveSpec(fromFile, spec) {
  if (!spec.startsWith(".")) return null; // a package or node: built-in
  const base = resolve(dirname(fromFile), spec);
  const tries = [base];
  if (/\.(js|mjs|cjs)$/.test(base)) tries.push(base.replace(/\.(m|c)?js$/, ".$1ts"));
  if (!SOURCE.test(base)) tries.push(`${base}.ts`, `${base}.js`, join(base, "index.ts"), join(base, "index.js"));
  for (const t of tries) if (existsSync(t) && statSync(t).isFile()) return t;
  return undefined; // relative but missing: tsc reports that; here it is not an edge
}

export function buildGraph(srcDir) {
  const root = resolve(srcDir);
  const rel = (p) => relative(root, p).split(sep).join("/");
  const files = listSources(root);
  const edges = new Map(); // file → [{ to, line, typeOnly, kind, spec }]
  for (const f of files) {
    const list = [];
    for (const imp of readImports(readFileSync(f, "utf8"))) {
      const target = resolveSpec(f, imp.spec);
      if (!target) continue;
      const to = rel(target);
      if (to.startsWith("../")) continue; // outside src/ (package.json, …): not layered
      list.push({ ...imp, to });
    }
    edges.set(rel(f), list);
  }
  return edges;
}

/** Tarjan's strongly connected components; each with more than one file (or a file importing
 * itself) is a cycle. Iterative, so a long chain cannot overflow the stack. */
export function cycles(edges, keep = () => true) {
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const onStack = new Set();
  const stack = [];
  const out = [];
  const next = (v) => [...new Set((edges.get(v) ?? []).filter(keep).map((e) => e.to))].filter((w) => edges.has(w));
  for (const start of edges.keys()) {
    if (idx.has(start)) continue;
    const work = [{ v: start, it: 0, succ: null }];
    while (work.length) {
      const frame = work[work.length - 1];
      const { v } = frame;
      if (frame.succ === null) {
        idx.set(v, index);
        low.set(v, index);
        index++;
        stack.push(v);
        onStack.add(v);
        frame.succ = next(v);
      }
      if (frame.it < frame.succ.length) {
        const w = frame.succ[frame.it++];
        if (!idx.has(w)) work.push({ v: w, it: 0, succ: null });
        else if (onStack.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
        continue;
      }
      work.pop();
      if (work.length) {
        const parent = work[work.length - 1].v;
        low.set(parent, Math.min(low.get(parent), low.get(v)));
      }
      if (low.get(v) === idx.get(v)) {
        const scc = [];
        let w;
        do {
          w = stack.pop();
          onStack.delete(w);
          scc.push(w);
        } while (w !== v);
        const selfLoop = scc.length === 1 && next(v).includes(v);
        if (scc.length > 1 || selfLoop) out.push(scc.sort());
      }
    }
  }
  return out.sort((a, b) => b.length - a.length);
}

/** One shortest loop through a cycle's files, to show how it closes (BFS back to the start). */
function loopThrough(edges, scc) {
  const inside = new Set(scc);
  const start = scc[0];
  const prev = new Map([[start, null]]);
  const queue = [start];
  while (queue.length) {
    const v = queue.shift();
    for (const e of edges.get(v) ?? []) {
      if (!inside.has(e.to)) continue;
      if (e.to === start) {
        const path = [start];
        for (let p = v; p !== start; p = prev.get(p)) path.splice(1, 0, p);
        return [...path, start];
      }
      if (!prev.has(e.to)) {
        prev.set(e.to, v);
        queue.push(e.to);
      }
    }
  }
  return [start, start];
}

export function check(srcDir, layers = LAYERS) {
  const edges = buildGraph(srcDir);
  const unplaced = [];
  const upward = [];
  for (const [file, list] of edges) {
    const from = layerOf(file, layers);
    if (!from) {
      unplaced.push(file);
      continue;
    }
    for (const e of list) {
      const to = layerOf(e.to, layers);
      if (to && to.rank > from.rank) upward.push({ file, ...e, fromLayer: from.name, toLayer: to.name });
    }
  }
  const all = cycles(edges).map((files) => ({ files, loop: loopThrough(edges, files) }));
  const runtime = cycles(edges, (e) => !e.typeOnly).map((files) => ({
    files,
    loop: loopThrough(new Map([...edges].map(([k, v]) => [k, v.filter((e) => !e.typeOnly)])), files),
  }));
  return { files: edges.size, unplaced, upward, cycles: all, runtimeCycles: runtime };
}

function report(result) {
  const lines = [];
  for (const f of result.unplaced)
    lines.push(`${f}: not in any layer (add its folder to LAYERS in scripts/check-layers.mjs)`);
  for (const u of result.upward) {
    const how = u.typeOnly ? "type-only import" : u.kind === "dynamic" ? "dynamic import" : "import";
    lines.push(`${u.file}:${u.line} → ${u.to}  [${how} from ${u.fromLayer} up to ${u.toLayer}]`);
  }
  for (const c of result.cycles) {
    const runtime = result.runtimeCycles.filter((r) => r.files.every((f) => c.files.includes(f)));
    lines.push(`cycle of ${c.files.length} files [no import cycle anywhere]: ${c.loop.join(" → ")}`);
    for (const r of runtime) lines.push(`  of which a runtime cycle of ${r.files.length}: ${r.loop.join(" → ")}`);
    if (c.files.length > 2) lines.push(`  files: ${c.files.join(", ")}`);
  }
  const typeOnly = result.upward.filter((u) => u.typeOnly).length;
  lines.push(
    `${result.files} files: ${result.upward.length} upward imports (${typeOnly} type-only), ` +
      `${result.cycles.length} cycles (largest ${result.cycles[0]?.files.length ?? 0} files; ` +
      `${result.runtimeCycles.length} at runtime), ${result.unplaced.length} files in no layer`,
  );
  return lines.join("\n");
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const at = args.indexOf("--src");
  const srcDir = at >= 0 ? args[at + 1] : join(dirname(fileURLToPath(import.meta.url)), "..", "src");
  const result = check(srcDir);
  if (args.includes("--json")) console.log(JSON.stringify(result, null, 2));
  else console.log(report(result));
  const bad = result.unplaced.length + result.upward.length + result.cycles.length;
  process.exit(bad ? 1 : 0);
}
