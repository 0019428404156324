// `npm run bench`: runs every bench/*.ts script (not lib/, not this file) one after another,
// each in its own node process so one bench's relays and memory cannot touch the next.
// Scripts are found by listing the folder: a new bench file needs no change here.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const self = basename(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const scripts = readdirSync(here, { withFileTypes: true })
  .filter((e) => e.isFile() && e.name.endsWith(".ts") && !e.name.endsWith(".d.ts") && e.name !== self)
  .map((e) => e.name)
  .filter((name) => !only.length || only.some((o) => name === o || name === `${o}.ts`))
  .sort();

if (!scripts.length) {
  console.error(`no bench scripts${only.length ? ` named ${only.join(", ")}` : ""} in ${here}`);
  process.exit(2);
}

const failed: string[] = [];
for (const name of scripts) {
  console.log(`\n=== bench/${name} ===`);
  const r = spawnSync(process.execPath, ["--import", "tsx", join(here, name)], { stdio: "inherit" });
  if (r.status !== 0) failed.push(`${name} (${r.signal ?? `exit ${r.status}`})`);
}
console.log(
  `\n${scripts.length - failed.length} of ${scripts.length} bench scripts within their targets${failed.length ? `; not: ${failed.join(", ")}` : ""}`,
);
process.exitCode = failed.length ? 1 : 0;
