// The layer rule of src/ (issue 19): base (core, store) → domains → actions → surfaces → app →
// entry (cli). scripts/check-layers.mjs runs as `npm run check` on a small src tree written to a
// temp folder: it fails on an upward import, on a type-only upward import, on a cycle and on a
// folder in no layer, and passes on a clean tree; what sits in comments or strings is not read.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), "..", "scripts", "check-layers.mjs");

// A clean tree: each file imports only its own layer or lower ones, in every syntax in use.
const CLEAN: Record<string, string> = {
  "core/clock.ts": `export interface Clock { now(): number }\n`,
  "core/errors.ts": `import type { Clock } from "./clock.ts";\nexport class RelayError extends Error {}\nexport type C = Clock;\n`,
  "store/db.ts": `import { RelayError } from "../core/errors.ts";\nexport const db = { RelayError };\n`,
  "sessions/store.ts": [
    `import {`,
    `  db,`,
    `} from "../store/db.ts";`,
    `import type { Clock } from "../core/clock.ts";`,
    `export const sessions = (c: Clock) => [db, c];`,
  ].join("\n"),
  "watching/watching.ts": `import { sessions } from "../sessions/store.ts";\nexport const watch = sessions;\n`,
  "actions/send.ts": `import { watch } from "../watching/watching.ts";\nexport * from "../sessions/store.ts";\nexport const send = watch;\n`,
  "api/routes.ts": `import { send } from "../actions/send.ts";\nexport { send };\n`,
  "app/root.ts": `import { send } from "../actions/send.ts";\nimport "../api/routes.ts";\nexport const start = () => send;\n`,
  "cli.ts": `const app = await import("./app/root.ts");\nexport default app;\n`,
};

function run(files: Record<string, string>): { code: number | null; out: string } {
  const dir = mkdtempSync(join(tmpdir(), "oar-layers-"));
  try {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, "src", path)), { recursive: true });
      writeFileSync(join(dir, "src", path), text);
    }
    const r = spawnSync(process.execPath, [SCRIPT, "--src", join(dir, "src")], { encoding: "utf8" });
    return { code: r.status, out: r.stdout + r.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("a clean tree passes, with every import syntax and imports named only in comments and strings", () => {
  const r = run({
    ...CLEAN,
    // Upward imports that are not imports: in a comment, a string, a template and a regex.
    "core/words.ts": [
      `// import { send } from "../actions/send.ts";`,
      `/* export * from "../app/root.ts"; */`,
      `export const a = 'import { x } from "../actions/send.ts"';`,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the fake file holds a template literal
      'export const b = `import("../app/root.ts") ${a} import "../api/routes.ts"`;',
      `export const c = /import "..\\/cli.ts"/;`,
    ].join("\n"),
  });
  assert.equal(r.code, 0, r.out);
  assert.match(r.out, /0 upward imports .* 0 cycles/);
});

test("an import from a lower layer up to a higher one fails, naming file:line, target and rule", () => {
  const r = run({
    ...CLEAN,
    "actions/usage.ts": `export const usage = 1;\n`,
    "sessions/store.ts": `${CLEAN["sessions/store.ts"]}\nimport { usage } from "../actions/usage.ts";\nexport const u = usage;\n`,
  });
  assert.equal(r.code, 1, r.out);
  assert.match(r.out, /^sessions\/store\.ts:6 → actions\/usage\.ts {2}\[import from domains up to actions\]$/m);
  assert.match(r.out, /1 upward imports \(0 type-only\), 0 cycles/);
});

test("a type-only upward import fails too: `import type`, `export type … from`, `{ type X }` and typeof import()", () => {
  const r = run({
    ...CLEAN,
    "app/relay.ts": `export class Relay {}\n`,
    "watching/watching.ts": `import type { Relay } from "../app/relay.ts";\nexport const watch = (r: Relay) => r;\n`,
    "groups/groups.ts": `export type { Relay } from "../app/relay.ts";\n`,
    "questions/asks.ts": `import { type Relay } from "../app/relay.ts";\nexport type R = Relay;\n`,
    "billing/cap.ts": `export type R = typeof import("../app/relay.ts");\n`,
  });
  assert.equal(r.code, 1, r.out);
  for (const file of ["watching/watching.ts:1", "groups/groups.ts:1", "questions/asks.ts:1", "billing/cap.ts:1"]) {
    assert.ok(r.out.includes(`${file} → app/relay.ts  [type-only import from domains up to app]`), `${file}\n${r.out}`);
  }
  assert.match(r.out, /4 upward imports \(4 type-only\)/);
});

test("an import cycle fails even within one layer and when a type-only import closes it; its loop is shown", () => {
  const r = run({
    ...CLEAN,
    "groups/groups.ts": `import { members } from "./members.ts";\nexport const groups = members;\n`,
    "groups/members.ts": `import type { Find } from "./find.ts";\nexport const members = 1;\nexport type M = Find;\n`,
    "groups/find.ts": `import { groups } from "./groups.ts";\nexport type Find = typeof groups;\n`,
  });
  assert.equal(r.code, 1, r.out);
  assert.match(
    r.out,
    /^cycle of 3 files \[no import cycle anywhere\]: groups\/find\.ts → groups\/groups\.ts → groups\/members\.ts → groups\/find\.ts$/m,
  );
  assert.match(r.out, /0 upward imports .* 1 cycles \(largest 3 files; 0 at runtime\)/);

  // The same loop closed by a value import is also reported as a runtime cycle.
  const runtime = run({
    ...CLEAN,
    "groups/groups.ts": `import { members } from "./members.ts";\nexport const groups = members;\n`,
    "groups/members.ts": `import { groups } from "./groups.ts";\nexport const members = () => groups;\n`,
  });
  assert.equal(runtime.code, 1, runtime.out);
  assert.match(
    runtime.out,
    /^ {2}of which a runtime cycle of 2: groups\/groups\.ts → groups\/members\.ts → groups\/groups\.ts$/m,
  );
});

test("a file in a folder that no layer names fails until the folder is placed", () => {
  const r = run({ ...CLEAN, "misc/helper.ts": `export const x = 1;\n` });
  assert.equal(r.code, 1, r.out);
  assert.match(r.out, /^misc\/helper\.ts: not in any layer/m);
});
