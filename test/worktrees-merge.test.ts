// The merge queue (contract §10.1) on real repositories with no git identity configured:
// fast-forward, two disjoint branches landing one on top of the other, a conflict and failing
// tests that change nothing, a dirty target refused with BUSY, a clean checked-out target
// brought forward, the queue order and positions, claims ending, and a merge that was
// running when its relay was SIGKILLed made again by the next one.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ManualClock } from "../src/core/clock.ts";
import type { RelayError } from "../src/core/errors.ts";
import { openDb } from "../src/store/db.ts";
import { Worktrees } from "../src/worktrees/worktrees.ts";
import {
  cleanTemps,
  commitAll,
  domainDeps,
  g,
  isolateGit,
  makeRepo,
  tempDir,
  write,
  refusal,
} from "./helpers/git-repos.ts";

isolateGit();
after(cleanTemps);

const FILES = { "README.md": "hello\n", "src/shared.ts": "export const v = 1;\n", "package.json": "{}\n" };

async function setup(sessions: string[] = ["ses_aaaaaaaaaaaa", "ses_bbbbbbbbbbbb", "ses_cccccccccccc"]) {
  const repo = makeRepo(FILES);
  const clock = new ManualClock(Date.parse("2026-12-01T10:00:00Z"));
  const deps = domainDeps(clock);
  const w = new Worktrees({ ...deps, relayName: "desk", titleOf: (id) => `Title of ${id}` });
  const wts = [];
  for (const id of sessions)
    wts.push(await w.lifecycle.create(await w.lifecycle.plan(repo), { id, title: id.slice(4, 8) }));
  const forever = () => clock.now() + 3_600_000; // the manual clock never gets there: wait for the end
  return { repo, deps, clock, w, wts, forever };
}

test("a branch ahead of into is fast-forwarded, and the clean main folder is brought to it", async () => {
  const { repo, w, wts, forever } = await setup(["ses_aaaaaaaaaaaa"]);
  write(wts[0].path, "src/a.ts", "export const a = 1;\n");
  const tip = commitAll(wts[0].path, "add a");
  const { mergeId } = await w.merges.ask({ session: "ses_aaaaaaaaaaaa" });
  assert.match(mergeId, /^mrg_[a-z0-9]{12}$/);
  const done = await w.merges.wait(mergeId, forever());
  assert.deepEqual(done, { merge_id: mergeId, status: "merged", commit: tip, fastForward: true, updatedFolder: repo });
  assert.equal(g(repo, "rev-parse", "main").trim(), tip);
  assert.equal(readFileSync(join(repo, "src/a.ts"), "utf8"), "export const a = 1;\n");
  assert.equal(g(repo, "status", "--porcelain"), "");
  assert.equal(w.lifecycle.store.get("ses_aaaaaaaaaaaa")?.merged_commit, tip);
});

test("two disjoint branches both land, the second merged on top of the first, signed with the fallback identity", async () => {
  const { repo, w, wts, forever } = await setup(["ses_aaaaaaaaaaaa", "ses_bbbbbbbbbbbb"]);
  write(wts[0].path, "src/a.ts", "a\n");
  const a = commitAll(wts[0].path, "a");
  write(wts[1].path, "src/b.ts", "b\n");
  const b = commitAll(wts[1].path, "b");
  const first = await w.merges.ask({ session: "ses_aaaaaaaaaaaa", test: "test -f src/a.ts" });
  const second = await w.merges.ask({ session: "ses_bbbbbbbbbbbb", test: "test -f src/a.ts && test -f src/b.ts" });
  const [r1, r2] = await Promise.all([
    w.merges.wait(first.mergeId, forever()),
    w.merges.wait(second.mergeId, forever()),
  ]);
  assert.equal(r1.status, "merged");
  assert.equal(r2.status, "merged");
  if (r1.status !== "merged" || r2.status !== "merged") return;
  assert.equal(r1.commit, a);
  assert.equal(r2.fastForward, false);
  assert.equal(g(repo, "rev-parse", "main").trim(), r2.commit);
  assert.deepEqual(g(repo, "log", "-1", "--format=%P", r2.commit).trim().split(" "), [a, b]);
  assert.equal(
    g(repo, "log", "-1", "--format=%an <%ae>|%cn <%ce>", r2.commit).trim(),
    "OAR relay desk <oar@localhost>|OAR relay desk <oar@localhost>",
  );
  assert.match(
    g(repo, "log", "-1", "--format=%B", r2.commit),
    /^Merge branch 'oar\/bbbb-bbbbbb' into main\n\nOAR-Session: ses_bbbbbbbbbbbb\nOAR-Merge: mrg_/,
  );
  assert.ok(existsSync(join(repo, "src/a.ts")) && existsSync(join(repo, "src/b.ts")));
});

test("a merge commit uses the repository's own identity when it has one", async () => {
  const { repo, w, wts, forever } = await setup(["ses_aaaaaaaaaaaa", "ses_bbbbbbbbbbbb"]);
  g(repo, "config", "user.name", "Repo Owner");
  g(repo, "config", "user.email", "owner@example.com");
  write(wts[0].path, "a.txt", "a\n");
  commitAll(wts[0].path, "a");
  write(wts[1].path, "b.txt", "b\n");
  commitAll(wts[1].path, "b");
  await w.merges.wait((await w.merges.ask({ session: "ses_aaaaaaaaaaaa" })).mergeId, forever());
  const r = await w.merges.wait((await w.merges.ask({ session: "ses_bbbbbbbbbbbb" })).mergeId, forever());
  assert.equal(r.status, "merged");
  if (r.status === "merged")
    assert.equal(g(repo, "log", "-1", "--format=%an <%ae>", r.commit).trim(), "Repo Owner <owner@example.com>");
});

test("a conflict answers its files and changes nothing", async () => {
  const { repo, w, wts, forever } = await setup(["ses_aaaaaaaaaaaa", "ses_cccccccccccc"]);
  write(wts[0].path, "src/shared.ts", "export const v = 2;\n");
  commitAll(wts[0].path, "A sets 2");
  write(wts[1].path, "src/shared.ts", "export const v = 3;\n");
  write(wts[1].path, "README.md", "hello from C\n");
  const cTip = commitAll(wts[1].path, "C sets 3");
  await w.merges.wait((await w.merges.ask({ session: "ses_aaaaaaaaaaaa" })).mergeId, forever());
  const mainBefore = g(repo, "rev-parse", "main").trim();
  const { mergeId } = await w.merges.ask({ session: "ses_cccccccccccc", test: "touch ran" });
  assert.deepEqual(await w.merges.wait(mergeId, forever()), {
    merge_id: mergeId,
    status: "conflict",
    files: ["src/shared.ts"],
  });
  assert.equal(g(repo, "rev-parse", "main").trim(), mainBefore);
  assert.equal(g(repo, "status", "--porcelain"), "");
  assert.equal(g(wts[1].path, "rev-parse", "HEAD").trim(), cTip);
  assert.equal(g(wts[1].path, "status", "--porcelain"), "");
  assert.equal(existsSync(join(w.lifecycle.folders.scratch(repo), "ran")), false, "no test ran");
});

test("failing tests answer tests_failed with the tail and counts read_task_output gives, and change nothing", async () => {
  const { repo, w, wts, forever } = await setup(["ses_aaaaaaaaaaaa"]);
  write(
    wts[0].path,
    "checks.test.mjs",
    [
      'import { test } from "node:test";',
      'import assert from "node:assert";',
      'test("fine", () => {});',
      'test("broken", () => assert.equal(1, 2));',
      "",
    ].join("\n"),
  );
  commitAll(wts[0].path, "tests");
  const before = g(repo, "rev-parse", "main").trim();
  const { mergeId } = await w.merges.ask({
    session: "ses_aaaaaaaaaaaa",
    test: `"${process.execPath}" --test checks.test.mjs`,
  });
  const r = await w.merges.wait(mergeId, forever());
  assert.equal(r.status, "tests_failed");
  if (r.status !== "tests_failed") return;
  assert.deepEqual(r.counts, { runner: "node:test", passed: 1, failed: 1, skipped: 0, final: true });
  assert.equal(r.exitCode, 1);
  assert.ok(r.tail.length > 0 && r.tail.length <= 50);
  assert.ok(
    r.tail.some((l) => /# fail 1/.test(l)),
    r.tail.join("\n"),
  );
  assert.equal(g(repo, "rev-parse", "main").trim(), before);
  assert.equal(existsSync(join(repo, "checks.test.mjs")), false);
  // Passing tests: merged, with their counts.
  write(wts[0].path, "checks.test.mjs", 'import { test } from "node:test";\ntest("fine", () => {});\n');
  commitAll(wts[0].path, "fixed");
  const ok = await w.merges.wait(
    (await w.merges.ask({ session: "ses_aaaaaaaaaaaa", test: `"${process.execPath}" --test checks.test.mjs` })).mergeId,
    forever(),
  );
  assert.equal(ok.status, "merged");
  if (ok.status === "merged")
    assert.deepEqual(ok.counts, { runner: "node:test", passed: 1, failed: 0, skipped: 0, final: true });
});

test("into checked out with uncommitted changes is refused with BUSY naming the folder; nothing is queued or changed", async () => {
  const { repo, w, wts } = await setup(["ses_aaaaaaaaaaaa"]);
  write(wts[0].path, "a.txt", "a\n");
  commitAll(wts[0].path, "a");
  write(repo, "README.md", "the owner is editing\n");
  const e = await refusal(w.merges.ask({ session: "ses_aaaaaaaaaaaa" }));
  assert.equal(e.code, "REMOTE_RELAY_BUSY");
  assert.equal(
    e.message,
    `main is checked out in ${repo}, which has 1 uncommitted change; commit or stash it there first. Nothing was merged.`,
  );
  assert.deepEqual(w.merges.queue(), []);
  assert.equal(readFileSync(join(repo, "README.md"), "utf8"), "the owner is editing\n");
  // New untracked files in the target do not stop a merge.
  g(repo, "checkout", "--", "README.md");
  write(repo, "scratch-notes.txt", "mine\n");
  const r = await w.merges.wait((await w.merges.ask({ session: "ses_aaaaaaaaaaaa" })).mergeId, Number.MAX_SAFE_INTEGER);
  assert.equal(r.status, "merged");
  assert.equal(readFileSync(join(repo, "scratch-notes.txt"), "utf8"), "mine\n");
});

test("merges into one repository run one at a time in the order asked; a waiting one answers queued with its position", async () => {
  const { repo, w, wts, clock, forever } = await setup();
  const gate = join(tempDir(), "go");
  for (const [i, wt] of wts.entries()) {
    write(wt.path, `f${i}.txt`, `${i}\n`);
    commitAll(wt.path, `f${i}`);
  }
  const wait = `while [ ! -f ${gate} ]; do sleep 0.05; done`;
  const m1 = await w.merges.ask({ session: "ses_aaaaaaaaaaaa", test: wait });
  const m2 = await w.merges.ask({ session: "ses_bbbbbbbbbbbb", test: "test -f f0.txt" });
  await waitUntil(() => w.merges.store.get(m1.mergeId)?.test_pgid);
  // The third goes into another branch, checked out in a folder of the owner's: same repository, same queue.
  const release = join(tempDir(), "release");
  g(repo, "worktree", "add", "-q", "-b", "release", release, "main");
  const m3 = await w.merges.ask({ session: "ses_cccccccccccc", into: "release" });
  assert.deepEqual(await w.merges.wait(m1.mergeId, clock.now()), {
    merge_id: m1.mergeId,
    status: "queued",
    queuePosition: 0,
  });
  assert.deepEqual(w.merges.answer(m2.mergeId), { merge_id: m2.mergeId, status: "queued", queuePosition: 1 });
  assert.deepEqual(w.merges.answer(m3.mergeId), { merge_id: m3.mergeId, status: "queued", queuePosition: 2 });
  assert.deepEqual(
    w.merges.queue(repo).map((m) => [m.session, m.status, m.queuePosition]),
    [
      ["ses_aaaaaaaaaaaa", "running", 0],
      ["ses_bbbbbbbbbbbb", "queued", 1],
      ["ses_cccccccccccc", "queued", 2],
    ],
  );
  // While m3 waits, the owner starts editing in its target folder: m3 is refused when its turn comes.
  write(release, "README.md", "edited while queued\n");
  const r3 = w.merges.wait(m3.mergeId, forever()).then(
    () => null,
    (e: unknown) => e,
  );
  writeFileSync(gate, "");
  const [r1, r2] = [await w.merges.wait(m1.mergeId, forever()), await w.merges.wait(m2.mergeId, forever())];
  assert.equal(r1.status, "merged");
  assert.equal(r2.status, "merged");
  const e3 = (await r3) as RelayError;
  assert.equal(e3?.code, "REMOTE_RELAY_BUSY");
  assert.match(e3.message, new RegExp(`^release is checked out in ${release}, which has 1 uncommitted change`));
  assert.deepEqual(e3.extra, { merge_id: m3.mergeId });
  assert.ok(existsSync(join(repo, "f0.txt")) && existsSync(join(repo, "f1.txt")));
  assert.ok(!existsSync(join(release, "f2.txt")));
});

test("a test command running past its time on the relay's clock is stopped: tests_failed, nothing changed", async () => {
  const repo = makeRepo(FILES);
  const clock = new ManualClock(Date.parse("2026-12-01T10:00:00Z"));
  const deps = domainDeps(clock);
  const w = new Worktrees({ ...deps, relayName: "desk", titleOf: () => null, mergeTestTimeoutMs: 5 * 60_000 });
  const v = await w.lifecycle.create(await w.lifecycle.plan(repo), { id: "ses_slow00000001", title: "Slow" });
  write(v.path, "s.txt", "s\n");
  commitAll(v.path, "s");
  const before = g(repo, "rev-parse", "main").trim();
  const { mergeId } = await w.merges.ask({
    session: "ses_slow00000001",
    test: "echo started; while true; do sleep 0.05; done",
  });
  await waitUntil(() => w.merges.store.get(mergeId)?.test_pgid);
  const pgid = w.merges.store.get(mergeId)!.test_pgid!;
  await clock.advance(5 * 60_000);
  const r = await w.merges.wait(mergeId, clock.now() + 60_000);
  assert.equal(r.status, "tests_failed");
  if (r.status !== "tests_failed") return;
  assert.equal(r.stopped, "timeout");
  assert.deepEqual(r.tail, ["started", "[the test command was stopped after 5 min]"]);
  assert.ok(!alive(pgid), "its processes are gone");
  assert.equal(g(repo, "rev-parse", "main").trim(), before);
});

test("asking for a merge that cannot be made is refused at once and queues nothing", async () => {
  const { repo, w, wts } = await setup(["ses_aaaaaaaaaaaa"]);
  const none = await refusal(w.merges.ask({ session: "ses_nothing000000" }));
  assert.match(
    none.message,
    /^Session ses_nothing000000 does not work in a worktree of its own; .* Nothing was merged\.$/,
  );
  const nothing = await refusal(w.merges.ask({ session: "ses_aaaaaaaaaaaa" }));
  assert.match(nothing.message, /^oar\/aaaa-aaaaaa has no commit that main lacks\. Nothing was merged\.$/);
  write(wts[0].path, "wip.txt", "not committed\n");
  const uncommitted = await refusal(w.merges.ask({ session: "ses_aaaaaaaaaaaa" }));
  assert.match(
    uncommitted.message,
    /has no commit that main lacks; 1 uncommitted change in its worktree is not part of a merge \(commit first\)\./,
  );
  commitAll(wts[0].path, "now committed");
  const unknown = await refusal(w.merges.ask({ session: "ses_aaaaaaaaaaaa", into: "nope" }));
  assert.match(unknown.message, new RegExp(`^No branch nope in ${repo}; into names a local branch\\.`));
  const self = await refusal(w.merges.ask({ session: "ses_aaaaaaaaaaaa", into: "oar/aaaa-aaaaaa" }));
  assert.match(self.message, /names the session's own branch/);
  for (const e of [none, nothing, uncommitted, unknown, self]) assert.equal(e.code, "REMOTE_RELAY_INVALID_INPUT");
  assert.deepEqual(w.merges.queue(), []);
  await refusal(w.merges.wait("mrg_nope", 0)).then((e) => assert.equal(e.code, "REMOTE_RELAY_NOT_FOUND"));
});

test("merges asked at once read into's folder once between them (parallel agents asking together), and all land", async () => {
  const repo = makeRepo(FILES);
  const clock = new ManualClock(Date.parse("2026-12-01T10:00:00Z"));
  const deps = domainDeps(clock);
  // The real git, counting the status reads of the main folder (where main is checked out).
  let mainReads = 0;
  const git: typeof deps.git = (args, opts) => {
    if (opts?.cwd === repo && args.includes("status")) mainReads++;
    return deps.git(args, opts);
  };
  const w = new Worktrees({ ...deps, git, relayName: "desk", titleOf: (id) => `Title of ${id}` });
  const ids = ["ses_aaaaaaaaaaaa", "ses_bbbbbbbbbbbb", "ses_cccccccccccc"];
  for (const id of ids) {
    const v = await w.lifecycle.create(await w.lifecycle.plan(repo), { id, title: id.slice(4, 8) });
    write(v.path, `${id}.txt`, `${id}\n`);
    commitAll(v.path, id);
  }
  mainReads = 0;
  const asked = await Promise.all(ids.map((session) => w.merges.ask({ session })));
  assert.equal(mainReads, 1);
  const done = await Promise.all(asked.map((a) => w.merges.wait(a.mergeId, clock.now() + 3_600_000)));
  assert.deepEqual(
    done.map((d) => d.status),
    ["merged", "merged", "merged"],
  );
  for (const id of ids) assert.equal(readFileSync(join(repo, `${id}.txt`), "utf8"), `${id}\n`);
});

test("a merge into a branch no folder has moves the branch alone; uncommitted work is left out with a note", async () => {
  const { repo, w, wts, forever } = await setup(["ses_aaaaaaaaaaaa"]);
  g(repo, "branch", "release");
  write(wts[0].path, "r.txt", "r\n");
  const tip = commitAll(wts[0].path, "r");
  write(wts[0].path, "later.txt", "not yet\n");
  const asked = await w.merges.ask({ session: "ses_aaaaaaaaaaaa", into: "release" });
  assert.equal(asked.note, "1 uncommitted change in its worktree is not part of a merge (commit first).");
  const r = await w.merges.wait(asked.mergeId, forever());
  assert.deepEqual(r, { merge_id: asked.mergeId, status: "merged", commit: tip, fastForward: true });
  assert.equal(g(repo, "rev-parse", "release").trim(), tip);
  assert.notEqual(g(repo, "rev-parse", "main").trim(), tip);
});

test("a merged branch's claims end; an archived session's branch is deleted once merged", async () => {
  const { repo, w, wts, forever } = await setup(["ses_aaaaaaaaaaaa"]);
  w.claims.claim({ session: "ses_aaaaaaaaaaaa", repo, paths: ["src/**"] });
  write(wts[0].path, "src/n.ts", "n\n");
  commitAll(wts[0].path, "n");
  const archived = await w.ended("ses_aaaaaaaaaaaa", "archived");
  assert.equal(archived?.removed, true);
  assert.equal(archived?.branchDeleted, false);
  w.claims.claim({ session: "ses_aaaaaaaaaaaa", repo, paths: ["lib/**"] }); // (an archived session's claim, for the test)
  const r = await w.merges.wait((await w.merges.ask({ session: "ses_aaaaaaaaaaaa" })).mergeId, forever());
  assert.equal(r.status, "merged");
  assert.deepEqual(
    w.claims.list(repo).map((c) => [c.paths[0], c.endReason]),
    [
      ["src/**", "archived"],
      ["lib/**", "merged"],
    ],
  );
  await waitUntil(() => w.lifecycle.store.get("ses_aaaaaaaaaaaa")?.branch_deleted_at);
  assert.throws(() => g(repo, "rev-parse", "--verify", "-q", "refs/heads/oar/aaaa-aaaaaa"));
});

test("a merge running when its relay was SIGKILLed is made again at the next start; its test processes are ended first", async () => {
  const { repo, deps, wts } = await setup(["ses_aaaaaaaaaaaa"]);
  write(wts[0].path, "k.txt", "k\n");
  const tip = commitAll(wts[0].path, "k");
  const gate = join(tempDir(), "go");
  const marker = join(tempDir(), "runs");
  const testCmd = `echo run >> ${marker}; while [ ! -f ${gate} ]; do sleep 0.05; done`;
  deps.db.close();
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      join(import.meta.dirname, "helpers/merge-crash-child.ts"),
      deps.dataDir,
      "ses_aaaaaaaaaaaa",
      testCmd,
    ],
    {
      stdio: ["ignore", "pipe", "inherit"],
      env: process.env,
    },
  );
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  await waitUntil(() => /running (\d+) (mrg_\w+)/.test(out), 60_000);
  const [, pgid, mergeId] = /running (\d+) (mrg_\w+)/.exec(out)!;
  child.kill("SIGKILL");
  await new Promise((r) => child.once("exit", r));
  assert.ok(alive(Number(pgid)), "the crashed relay's test command still runs");

  const clock = new ManualClock(Date.now());
  const w2 = new Worktrees({
    db: openDb(join(deps.dataDir, "relay.db")),
    clock,
    git: deps.git,
    dataDir: deps.dataDir,
    relayName: "desk",
    titleOf: () => null,
  });
  await w2.start();
  assert.ok(!alive(Number(pgid)), "ended at start");
  await waitUntil(() => readFileSync(marker, "utf8").split("\n").filter(Boolean).length === 2);
  assert.equal(w2.merges.answer(mergeId).status, "queued", "made again: running");
  writeFileSync(gate, "");
  const r = await w2.merges.wait(mergeId, clock.now() + 3_600_000);
  assert.deepEqual(r, { merge_id: mergeId, status: "merged", commit: tip, fastForward: true, updatedFolder: repo });
  await w2.close();
});

function alive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch {
    return false;
  }
  // Zombies of the group still answer kill(0): count only members that run.
  try {
    return readFileSync(`/proc/${pgid}/stat`, "utf8").split(") ")[1]?.[0] !== "Z";
  } catch {
    return false;
  }
}

async function waitUntil(fn: () => unknown, ms = 30_000): Promise<void> {
  for (const end = Date.now() + ms; !fn(); ) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 20));
  }
}

test("the first merge's scratch worktree is the spare checkout (no checkout of every file), and what a test leaves is gone before the next", async () => {
  const repo = makeRepo(FILES);
  const clock = new ManualClock(Date.parse("2026-12-01T10:00:00Z"));
  const deps = domainDeps(clock);
  const calls: string[][] = [];
  const git: typeof deps.git = (args, opts) => {
    calls.push(args);
    return deps.git(args, opts);
  };
  const w = new Worktrees({ ...deps, git, relayName: "desk", titleOf: (id) => `Title of ${id}` });
  const wts = [];
  for (const id of ["ses_aaaaaaaaaaaa", "ses_bbbbbbbbbbbb"])
    wts.push(await w.lifecycle.create(await w.lifecycle.plan(repo), { id, title: id.slice(4, 8) }));
  await w.lifecycle.spares.settled(repo);
  write(wts[0].path, "src/a.ts", "a\n");
  commitAll(wts[0].path, "a");
  write(wts[1].path, "src/b.ts", "b\n");
  commitAll(wts[1].path, "b");
  calls.length = 0;
  const first = await w.merges.ask({ session: "ses_aaaaaaaaaaaa", test: "touch left-behind.txt && test -f src/a.ts" });
  assert.equal((await w.merges.wait(first.mergeId, clock.now() + 3_600_000)).status, "merged");
  const scratch = w.lifecycle.folders.scratch(repo);
  const list = g(repo, "worktree", "list", "--porcelain");
  assert.match(list, new RegExp(`^worktree ${scratch}$`, "m"), "git knows the scratch worktree where it is");
  // git keeps a worktree's record under the name it was made with (a leading dot made a dash): the spare's.
  assert.match(
    readFileSync(join(scratch, ".git"), "utf8"),
    /\/worktrees\/[.-]spare-new-[0-9a-f]+\s*$/,
    "the spare was moved to be the scratch worktree",
  );
  assert.deepEqual(
    calls.filter((c) => c.includes("add") && c.includes(scratch)),
    [],
    "no checkout of every file",
  );
  await w.lifecycle.spares.settled(repo);
  assert.ok(existsSync(join(w.lifecycle.folders.spare(repo), ".git")), "a new spare is made for the next session");
  const second = await w.merges.ask({
    session: "ses_bbbbbbbbbbbb",
    test: "test ! -e left-behind.txt && test -f src/a.ts && test -f src/b.ts",
  });
  assert.equal((await w.merges.wait(second.mergeId, clock.now() + 3_600_000)).status, "merged");
  assert.equal(calls.filter((c) => c.includes("clean")).length, 2, "one clean after each test, none before");
  await w.close();
});
