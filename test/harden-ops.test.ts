// Operations (issue 13, contract §9.3): oar service (systemd user unit; what to do without
// systemd), oar doctor, oar backup while the relay runs, oar restore only while it is stopped;
// (issue 18) one relay per data folder, a backup private from its first byte, oar url.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  watch,
  writeFileSync,
} from "node:fs";
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
  const text = unitText({
    oarBin: "/opt/oar/bin/oar",
    nodeBin: "/usr/bin/node",
    dataDir: "/home/me/my data",
    port: 7421,
  });
  assert.match(text, /^\[Unit\]$/m);
  assert.match(
    text,
    /^ExecStart=\/usr\/bin\/node \/opt\/oar\/bin\/oar start --port 7421 --data "\/home\/me\/my data"$/m,
  );
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
  assert.match(
    ok.out,
    /^warn\s+provider Claude API is not available: .*\n {6}→ add an API key in Settings → Providers/m,
  );
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
    assert.match(
      bad.out,
      /^FAIL\s+data folder readable by others: .* is 755 \(should be 700\)\n {6}→ chmod -R go-rwx /m,
    );
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
  assert.match(
    refused.out,
    /A relay holds this data folder: relay "desk" \(OAR 0\.9\.19, pid \d+\) at http:\/\/127\.0\.0\.1:\d+\. Stop it first .*Nothing was restored\./,
  );
  assert.ok((await relay.session(later)).id, "nothing changed");

  await relay.kill(); // SIGKILL: the pid file stays behind, stale
  const done = await oar(["restore", file, "--data", relay.dataDir]);
  assert.equal(done.code, 0, done.out);
  assert.match(done.out, /Restored .* The store it replaced is kept as .*oar\.db\.before-restore-/);
  await relay.boot();
  assert.equal((await relay.session(kept)).messages.length >= 2, true, "the backup's sessions and messages are back");
  assert.equal((await relay.api("GET", `/api/sessions/${later}`)).status, 404, "what came after the backup is not");
  assert.match(
    (await oar(["restore", join(ROOT, "package.json"), "--data", mkdtempSync(join(tmpdir(), "oar-x-"))])).out,
    /cannot be opened as SQLite|not a readable OAR store|not an OAR store/,
  );
});

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

test("one relay per data folder: a second start is refused naming the first and changes nothing, restore is refused; after a SIGKILL a start works", async () => {
  const first = await TestRelay.start({ name: "first" });
  const pidFile = join(first.dataDir, "relay.pid");
  try {
    const pidBefore = readFileSync(pidFile, "utf8");
    assert.equal(JSON.parse(pidBefore).pid, first.proc.pid);
    const files = readdirSync(first.dataDir).sort();
    const holder = `relay "first" \\(OAR 0\\.9\\.19, pid ${first.proc.pid}\\) at ${escapeRegExp(first.url)}`;

    const second = await oar([
      "start",
      "--port",
      String(await freePort()),
      "--data",
      first.dataDir,
      "--name",
      "second",
      "--test-clock",
    ]);
    assert.equal(second.code, 1, second.out);
    assert.match(
      second.out,
      new RegExp(
        `^oar: A relay runs on the data folder ${escapeRegExp(first.dataDir)} already: ${holder}\\. Open it: \`oar url --data ${escapeRegExp(first.dataDir)}\` prints its web UI link\\. Nothing was started\\.$`,
        "m",
      ),
    );
    assert.doesNotMatch(second.out, /listening on/);
    assert.equal(readFileSync(pidFile, "utf8"), pidBefore, "the first relay's relay.pid stays");
    assert.deepEqual(readdirSync(first.dataDir).sort(), files);
    assert.equal((await fetch(`${first.url}/api/health`)).status, 200);

    // oar url: the link again, from relay.pid and the owner token.
    const url = await oar(["url", "--data", first.dataDir]);
    assert.equal(url.code, 0, url.out);
    assert.equal(url.out.trim(), `${first.url}/#token=${first.token}`);

    // Another data folder on the same port: the relay there says who it is.
    const port = new URL(first.url).port;
    const taken = await oar(["start", "--port", port, "--data", mkdtempSync(join(tmpdir(), "oar-other-"))]);
    assert.equal(taken.code, 1);
    assert.match(
      taken.out,
      new RegExp(
        `Port ${port} on 127\\.0\\.0\\.1 is in use \\(EADDRINUSE\\) by OAR 0\\.9\\.19 relay "first", which serves another data folder\\. Open it at ${escapeRegExp(first.url)}/ \\(\`oar url --data <its data folder>\` prints its link with the owner token\\), or start this relay with --port <another port>\\.`,
      ),
    );

    const file = join(mkdtempSync(join(tmpdir(), "oar-bak-")), "copy.db");
    assert.equal((await oar(["backup", file, "--data", first.dataDir])).code, 0);
    const refused = await oar(["restore", file, "--data", first.dataDir]);
    assert.equal(refused.code, 1);
    assert.match(
      refused.out,
      new RegExp(
        `A relay holds this data folder: ${holder}\\. Stop it first \\(systemctl --user stop oar, Ctrl-C, or kill ${first.proc.pid}\\), then restore\\. Nothing was restored\\.`,
      ),
    );
    assert.deepEqual(
      readdirSync(first.dataDir).filter((f) => f.includes("before-restore")),
      [],
    );

    // SIGKILL: the lock goes with the process; relay.pid stays behind, stale. Even naming a
    // live process (a reused pid: this test's own), it holds nothing.
    await first.kill();
    writeFileSync(pidFile, `${JSON.stringify({ ...JSON.parse(pidBefore), pid: process.pid })}\n`);
    const none = await oar(["url", "--data", first.dataDir]);
    assert.equal(none.code, 1);
    assert.match(
      none.out,
      new RegExp(
        `^oar: No relay runs on the data folder ${escapeRegExp(first.dataDir)}\\. Start one: oar start --data `,
        "m",
      ),
    );
    const restored = await oar(["restore", file, "--data", first.dataDir]);
    assert.equal(restored.code, 0, restored.out);
    // A relay of an OAR from before the lock holds none: relay.pid naming a live process whose
    // port answers as OAR (here: the other relay's) still stops a restore.
    writeFileSync(
      pidFile,
      `${JSON.stringify({ ...JSON.parse(pidBefore), pid: process.pid, port: Number(new URL(relay.url).port) })}\n`,
    );
    const older = await oar(["restore", file, "--data", first.dataDir]);
    assert.equal(older.code, 1, older.out);
    assert.match(
      older.out,
      new RegExp(
        `A relay holds this data folder: relay "desk" \\(OAR 0\\.9\\.19, pid ${process.pid}\\) at ${escapeRegExp(relay.url)}\\. Stop it first`,
      ),
    );
    await first.boot();
    assert.equal(JSON.parse(readFileSync(pidFile, "utf8")).pid, first.proc.pid);
    assert.equal((await oar(["url", "--data", first.dataDir])).out.trim(), `${first.url}/#token=${first.token}`);
  } finally {
    await first.stop();
  }
});

test("a port held by a program that is no relay: the start says so, with what to do", async () => {
  const blocker = createServer();
  const port = await freePort();
  await new Promise<void>((r) => blocker.listen(port, "127.0.0.1", () => r()));
  const data = mkdtempSync(join(tmpdir(), "oar-blocked-"));
  try {
    const r = await oar(["start", "--port", String(port), "--data", data]);
    assert.equal(r.code, 1);
    assert.match(
      r.out,
      new RegExp(
        `^oar: Port ${port} on 127\\.0\\.0\\.1 is in use \\(EADDRINUSE\\) by another program\\. Stop it, or start the relay with --port <another port>\\. Nothing was started\\.$`,
        "m",
      ),
    );
    // The port is taken before the store is opened: nothing was made in the data folder.
    assert.deepEqual(
      readdirSync(data).filter((f) => f !== "relay.lock"),
      [],
    );
  } finally {
    blocker.close();
  }
});

test("backup: the copy is 0600 from its first byte (a temporary file beside it, then linked into place); a symbolic link at the target is refused", async () => {
  // A store big enough that the copy takes many steps (100 pages each), made directly.
  const data = mkdtempSync(join(tmpdir(), "oar-big-"));
  const big = new Database(join(data, "oar.db"));
  big.exec("CREATE TABLE big (b BLOB)");
  const add = big.prepare("INSERT INTO big VALUES (randomblob(100000))");
  big.transaction(() => {
    for (let i = 0; i < 400; i++) add.run();
  })();
  big.close();

  const out = mkdtempSync(join(tmpdir(), "oar-bak-"));
  const seen: { name: string; mode: number; size: number }[] = [];
  const watcher = watch(out, (_, name) => {
    if (!name) return;
    try {
      const st = lstatSync(join(out, name));
      seen.push({ name, mode: st.mode & 0o777, size: st.size });
    } catch {}
  });
  const r = await oar(["backup", join(out, "copy.db"), "--data", data]);
  watcher.close();
  assert.equal(r.code, 0, r.out);
  const whole = statSync(join(out, "copy.db")).size;
  const written = seen.filter((s) => s.name !== "copy.db" || s.size < whole);
  assert.ok(
    written.some((s) => /^\.copy\.db\.oar-[0-9a-f]+\.tmp$/.test(s.name)),
    `seen while written under a temporary name: ${JSON.stringify(seen.slice(0, 5))}`,
  );
  for (const s of seen) assert.equal(s.mode, 0o600, `${s.name} was ${s.mode.toString(8)} at ${s.size} bytes`);
  assert.deepEqual(readdirSync(out), ["copy.db"], "the temporary file is gone");

  // A dangling link (a file would be made wherever it points) and a link to a file: refused.
  const dangling = join(out, "dangling.db");
  const target = join(mkdtempSync(join(tmpdir(), "oar-elsewhere-")), "made-here.db");
  symlinkSync(target, dangling);
  const d = await oar(["backup", dangling, "--data", data]);
  assert.equal(d.code, 1);
  assert.match(
    d.out,
    /dangling\.db is a symbolic link; give the path of a new file, not a link\. Nothing was written\./,
  );
  assert.ok(!existsSync(target), "nothing was written where the link points");
  const toFile = join(out, "to-file.db");
  symlinkSync(join(out, "copy.db"), toFile);
  assert.match((await oar(["backup", toFile, "--data", data])).out, /to-file\.db is a symbolic link/);
  assert.equal(statSync(join(out, "copy.db")).size, whole);
  assert.deepEqual(readdirSync(out).sort(), ["copy.db", "dangling.db", "to-file.db"]);
});
