// The compiled bundle (issue 14): `node scripts/build.mjs` writes dist/, bin/oar runs it
// when it is built from the sources as they are, and our scripted agent's workers then run
// from dist too, without a compiler in their process. Freshness is by modification time.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { TestRelay } from "./helpers/relay-process.ts";
import { distFresh } from "../scripts/dist-fresh.mjs";

const ROOT = resolve(fileURLToPath(new URL("..", import.meta.url)));
let relay: TestRelay;

before(async () => {
  execFileSync(process.execPath, [join(ROOT, "scripts", "build.mjs"), "--if-stale"], { cwd: ROOT, stdio: "inherit" });
  // bin/oar refuses to fall back to the sources: the relay below runs dist/cli.js or not at all.
  process.env.OAR_REQUIRE_DIST = "1";
  delete process.env.OAR_FROM_SOURCE;
  relay = await TestRelay.start({ name: "built" });
});
after(() => relay?.stop());

const cmdline = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
const children = (pid: number) =>
  readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);

test("the relay runs from dist: health answers, and a scripted turn runs in a worker started from dist without tsx", async () => {
  const health = await fetch(`${relay.url}/api/health`).then((r) => r.json());
  assert.deepEqual(health, { ok: true, name: "built", version: health.version });
  assert.match(relay.output, /OAR \S+ relay "built" listening on http:\/\/127\.0\.0\.1:\d+/);
  // The web page is served from the package's files, also from the bundle.
  const page = await fetch(`${relay.url}/`).then((r) => r.text());
  assert.match(page, /<html/i);
  assert.equal((await fetch(`${relay.url}/app/main.js`)).status, 200);

  const s = await relay.createSession({ title: "Built" });
  const reply = await relay.say(s, "hello from dist");
  assert.equal(reply.text, "echo: hello from dist");
  // The relay's child is the keeper (which holds the agents across restarts), from dist too;
  // the agent is the keeper's child.
  const keepers = children(relay.proc.pid!);
  assert.equal(keepers.length, 1, JSON.stringify(keepers.map(cmdline)));
  const [kNode, ...kArgs] = cmdline(keepers[0]);
  assert.equal(kNode, process.execPath);
  assert.ok(kArgs.includes(join(ROOT, "dist", "providers", "keeper", "keeper-main.js")), JSON.stringify(kArgs));
  assert.ok(!kArgs.some((a) => a.includes("tsx")), JSON.stringify(kArgs));
  const workers = children(keepers[0]).map(cmdline);
  assert.equal(workers.length, 1, JSON.stringify(workers));
  const [node, ...args] = workers[0];
  assert.equal(node, process.execPath);
  assert.equal(args[args.length - 1], join(ROOT, "dist", "providers", "scripted", "agent.js"));
  assert.ok(!args.some((a) => a.includes("tsx")), JSON.stringify(args));
});

test("bin/oar with OAR_REQUIRE_DIST=1 refuses a stale or missing build instead of running the sources", () => {
  const root = mkdtempSync(join(tmpdir(), "oar-fresh-"));
  try {
    mkdirSync(join(root, "src", "core"), { recursive: true });
    writeFileSync(join(root, "src", "core", "a.ts"), "export {};\n");
    writeFileSync(join(root, "package.json"), "{}\n");
    assert.equal(distFresh(root), false, "no dist at all");
    mkdirSync(join(root, "dist"));
    writeFileSync(join(root, "dist", "cli.js"), "");
    writeFileSync(join(root, "dist", "build-info.json"), JSON.stringify({ sourcesReadAt: Date.now() + 1000 }));
    assert.equal(distFresh(root), true, "built after the newest source");
    const later = new Date(Date.now() + 5000);
    utimesSync(join(root, "src", "core", "a.ts"), later, later);
    assert.equal(distFresh(root), false, "a source changed after the build");
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  // The real command: a checkout whose dist is stale does not start with the switch on.
  const copy = mkdtempSync(join(tmpdir(), "oar-stale-"));
  try {
    mkdirSync(join(copy, "bin"));
    mkdirSync(join(copy, "scripts"));
    mkdirSync(join(copy, "src"));
    for (const f of ["bin/oar", "scripts/dist-fresh.mjs"]) writeFileSync(join(copy, f), readFileSync(join(ROOT, f)));
    writeFileSync(join(copy, "package.json"), '{ "type": "module" }\n');
    writeFileSync(join(copy, "src", "cli.ts"), "console.log('sources ran');\n");
    let failed: { status: number; stderr: string } | null = null;
    try {
      execFileSync(process.execPath, [join(copy, "bin", "oar"), "--version"], {
        env: { ...process.env, OAR_REQUIRE_DIST: "1" },
        stdio: "pipe",
      });
    } catch (e: any) {
      failed = { status: e.status, stderr: String(e.stderr) };
    }
    assert.equal(failed?.status, 1);
    assert.match(failed!.stderr, /dist\/ is missing or older than the sources; run `npm run build` first/);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
});

test("bin/oar in an installed package (no git checkout) runs its build without comparing the sources' times; in a checkout it still compares", () => {
  const root = mkdtempSync(join(tmpdir(), "oar-installed-"));
  try {
    mkdirSync(join(root, "bin"));
    mkdirSync(join(root, "scripts"));
    mkdirSync(join(root, "src"));
    mkdirSync(join(root, "dist"));
    for (const f of ["bin/oar", "scripts/dist-fresh.mjs"]) writeFileSync(join(root, f), readFileSync(join(ROOT, f)));
    writeFileSync(join(root, "package.json"), '{ "type": "module" }\n');
    writeFileSync(join(root, "dist", "cli.js"), "console.log('dist ran');\n");
    writeFileSync(join(root, "dist", "build-info.json"), JSON.stringify({ sourcesReadAt: Date.now() - 60_000 }));
    writeFileSync(join(root, "src", "cli.ts"), "console.log('sources ran');\n");
    const run = () =>
      execFileSync(process.execPath, [join(root, "bin", "oar")], {
        env: { ...process.env, OAR_REQUIRE_DIST: "1" },
        stdio: "pipe",
      }).toString();
    assert.equal(run(), "dist ran\n", "no .git: the build runs though a source is newer");
    mkdirSync(join(root, ".git"));
    assert.throws(
      run,
      /dist\/ is missing or older than the sources/,
      "a checkout being edited never runs an old build",
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
