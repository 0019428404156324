// The keeper is one of the programs the build bundles (scripts/build.mjs): from dist/ it
// runs on plain node, without a compiler in its process, and holds agents like the source
// one. (A relay running from dist starts it that way: core/package-paths.ts ownProgram.)
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { KeeperDir, Rpc, agentSpec, alive, keeperPidOf, until } from "./helpers/keeper-kit.ts";
import { KeeperClient } from "../src/providers/keeper/client.ts";

const ROOT = resolve(fileURLToPath(new URL("..", import.meta.url)));

test("the built keeper runs from dist on plain node and holds an agent", async (t) => {
  execFileSync(process.execPath, [join(ROOT, "scripts", "build.mjs"), "--if-stale"], { cwd: ROOT, stdio: "inherit" });
  const js = join(ROOT, "dist", "providers", "keeper", "keeper-main.js");
  assert.ok(existsSync(js), "dist/providers/keeper/keeper-main.js is built");
  const info = JSON.parse(readFileSync(join(ROOT, "dist", "build-info.json"), "utf8"));
  assert.ok(info.entries.includes("src/providers/keeper/keeper-main.ts"));

  const kd = new KeeperDir();
  t.after(() => kd.close());
  const proc = spawn(process.execPath, [js, kd.dir, "--orphan-ms", "60000"], { stdio: "ignore", detached: true });
  kd.track(proc.pid!);
  // It writes its pid file once it listens.
  await until("listening", () => keeperPidOf(kd.dir) === proc.pid);
  const cmd = readFileSync(`/proc/${proc.pid}/cmdline`, "utf8");
  assert.ok(!cmd.includes("tsx"), cmd);

  const client = (await KeeperClient.connect(kd.dir, { start: false }))!;
  assert.equal(client.keeperPid, proc.pid);
  const pipe = await client.spawn("ses_d", agentSpec());
  kd.track(pipe.pid);
  const rpc = new Rpc(pipe);
  const sid = await rpc.openSession();
  assert.deepEqual((await rpc.prompt(sid, "/reply built")).result, { stopReason: "end_turn" });
  assert.equal(rpc.text(), "built");
  process.kill(proc.pid!, "SIGTERM");
  await until("keeper and agent gone", () => !alive(proc.pid!) && !alive(pipe.pid));
});
