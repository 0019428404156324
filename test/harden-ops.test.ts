// Operations (issue 13, contract §9.3): oar service (systemd user unit; what to do without
// systemd), oar doctor, oar backup while the relay runs, oar restore only while it is stopped.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { TestRelay, freePort } from "./helpers/relay-process.ts";
import { unitPath, unitText } from "../src/ops/service.ts";
import { createServer } from "node:net";

const ROOT = resolve(fileURLToPath(new URL("..", import.meta.url)));
const BIN = join(ROOT, "bin", "oar");

function oar(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string }> {
  return new Promise((res) => {
    execFile(BIN, args, { cwd: ROOT, env: { ...process.env, ...env }, timeout: 120_000 }, (err, stdout, stderr) => {
      res({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr });
    });
  });
}

let relay: TestRelay;
before(async () => {
  relay = await TestRelay.start();
});
after(() => relay.stop());

test("service: the unit text runs this oar with the given flags under systemd's user manager, logging to the journal", () => {
  const text = unitText({ oarBin: "/opt/oar/bin/oar", nodeBin: "/usr/bin/node", dataDir: "/home/me/my data", port: 7421 });
  assert.match(text, /^\[Unit\]$/m);
  assert.match(text, /^ExecStart=\/usr\/bin\/node \/opt\/oar\/bin\/oar start --port 7421 --data "\/home\/me\/my data"$/m);
  assert.match(text, /^Restart=on-failure$/m);
  // A restart signals the relay only: the keeper holding the agents outlives it.
  assert.match(text, /^KillMode=process$/m);
  assert.doesNotMatch(text, /KillMode=control-group/);
  assert.match(text, /^StandardOutput=journal$/m);
  assert.match(text, /^UMask=0077$/m);
  assert.match(text, /^WantedBy=default.target$/m);
  assert.equal(unitPath("/home/me"), "/home/me/.config/systemd/user/oar.service");
});

test("service without systemd (this container): install says why and how to run the relay instead, and writes nothing", async () => {
  const home = mkdtempSync(join(tmpdir(), "oar-home-"));
  const r = await oar(["service", "install", "--data", relay.dataDir], { HOME: home });
  assert.equal(r.code, 0, r.out);
  assert.match(r.out, /^No service installed: (systemd is not running|systemctl --user is not available)/m);
  assert.match(r.out, /nohup .*bin\/oar start --data .* --log-file/);
  assert.ok(!existsSync(unitPath(home)));
  const s = await oar(["service", "status"], { HOME: home });
  assert.match(s.out, /No service installed/);
});

test("doctor: Node, data folder modes, providers, port and disk, each with what to fix", async () => {
  const ok = await oar(["doctor", "--data", relay.dataDir, "--port", new URL(relay.url).port]);
  assert.match(ok.out, /^ok\s+Node \d+\./m);
  assert.match(ok.out, /^ok\s+data folder .* is private/m);
  assert.match(ok.out, /^ok\s+the relay runs on this data folder \(pid \d+, port \d+\)/m);
  assert.match(ok.out, /^warn\s+provider Claude API is not available: .*\n {6}→ add an API key in Settings → Providers/m);
  assert.match(ok.out, /GB free for the data folder/);

  // A loosened folder and a port another program holds are problems, with their fixes.
  const loose = mkdtempSync(join(tmpdir(), "oar-loose-"));
  chmodSync(loose, 0o755);
  const blocker = createServer();
  const port = await freePort();
  await new Promise<void>((r) => blocker.listen(port, "127.0.0.1", () => r()));
  try {
    const bad = await oar(["doctor", "--data", loose, "--port", String(port)]);
    assert.equal(bad.code, 1);
    assert.match(bad.out, /^FAIL\s+data folder readable by others: .* is 755 \(should be 700\)\n {6}→ chmod -R go-rwx /m);
    assert.match(bad.out, new RegExp(`^FAIL\\s+port ${port} on 127.0.0.1 is taken by another program\\n {6}→ `, "m"));
    assert.match(bad.out, /2 problems to fix\.$/m);
  } finally {
    blocker.close();
  }
});

test("backup while the relay runs and writes; restore refused while it runs, then puts the copy back", async () => {
  const kept = await relay.createSession({ title: "Before the backup" });
  await relay.say(kept, "hello");
  const file = join(mkdtempSync(join(tmpdir(), "oar-bak-")), "oar-backup.db");
  // Writes keep going during the backup.
  let writing = true;
  const writer = (async () => {
    let i = 0;
    while (writing) await relay.createSession({ title: `during ${i++}` });
  })();
  const b = await oar(["backup", file, "--data", relay.dataDir]);
  writing = false;
  await writer;
  assert.equal(b.code, 0, b.out);
  assert.match(b.out, /^Backed up .* \(\d+ bytes, mode 0600\)\.$/m);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  const copy = new Database(file, { readonly: true });
  assert.equal(copy.pragma("integrity_check", { simple: true }), "ok");
  assert.ok(copy.prepare("SELECT 1 FROM sessions WHERE id = ?").get(kept));
  copy.close();
  assert.match((await oar(["backup", file, "--data", relay.dataDir])).out, /exists already.*Nothing was written\./);

  const later = await relay.createSession({ title: "After the backup" });
  const refused = await oar(["restore", file, "--data", relay.dataDir]);
  assert.equal(refused.code, 1);
  assert.match(refused.out, /The relay is running on this data folder \(pid \d+, port \d+\)\. Stop it first .*Nothing was restored\./);
  assert.ok((await relay.session(later)).id, "nothing changed");

  await relay.kill(); // SIGKILL: the pid file stays behind, stale
  const done = await oar(["restore", file, "--data", relay.dataDir]);
  assert.equal(done.code, 0, done.out);
  assert.match(done.out, /Restored .* The store it replaced is kept as .*oar\.db\.before-restore-/);
  await relay.boot();
  assert.equal((await relay.session(kept)).messages.length >= 2, true, "the backup's sessions and messages are back");
  assert.equal((await relay.api("GET", `/api/sessions/${later}`)).status, 404, "what came after the backup is not");
  assert.match((await oar(["restore", join(ROOT, "package.json"), "--data", mkdtempSync(join(tmpdir(), "oar-x-"))])).out, /cannot be opened as SQLite|not a readable OAR store|not an OAR store/);
});
