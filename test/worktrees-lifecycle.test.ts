// A worktree session's checkout from start to end (contract §10.1), on real git repositories
// in temp folders with no git identity configured: plan (refusals with their reasons), create
// (new branch from HEAD, existing branch checked out, the spare), remove (never throwing away
// uncommitted work), and a branch the relay made deleted only once merged.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { isBranchName, relayBranchName, slugOf } from "../src/worktrees/branch-name.ts";
import { WorktreeLifecycle } from "../src/worktrees/lifecycle.ts";
import { Worktrees } from "../src/worktrees/worktrees.ts";
import { checkouts } from "../src/worktrees/worktree-list.ts";
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

function lifecycle(titles: Record<string, string> = {}) {
  const deps = domainDeps();
  return { deps, wt: new WorktreeLifecycle({ ...deps, titleOf: (id) => titles[id] ?? null }) };
}

test("the relay names a branch oar/<slug of the title>-<last 6 characters of the session id>", () => {
  assert.equal(relayBranchName("Fix the login page!", "ses_0123456789ab"), "oar/fix-the-login-page-6789ab");
  assert.equal(slugOf("Café: über  -- naïve"), "cafe-uber-naive");
  assert.equal(slugOf("   ***   "), "session");
  const long = slugOf("refactor the whole payments module and its tests carefully");
  assert.ok(long.length <= 40 && !long.endsWith("-"), long);
});

test("create: a worktree under <data>/worktrees on a new branch made from HEAD; the main folder is untouched", async () => {
  const repo = makeRepo();
  const { deps, wt } = lifecycle();
  const head = g(repo, "rev-parse", "HEAD").trim();
  const plan = await wt.plan(join(repo, "src"), null);
  assert.deepEqual(plan, { repo, branch: null, exists: false, startCommit: head, base: "main", baseCommit: head });
  const view = await wt.create(plan, { id: "ses_aaaaaabbbbbb", title: "Add a cache" });
  assert.equal(view.branch, "oar/add-a-cache-bbbbbb");
  assert.equal(view.repo, repo);
  assert.equal(view.base, "main");
  assert.equal(view.baseCommit, head);
  assert.ok(view.path.startsWith(`${join(deps.dataDir, "worktrees")}/`), view.path);
  assert.equal(g(view.path, "rev-parse", "--abbrev-ref", "HEAD").trim(), "oar/add-a-cache-bbbbbb");
  assert.equal(g(view.path, "rev-parse", "HEAD").trim(), head);
  assert.ok(existsSync(join(view.path, "src/a.ts")));
  assert.equal(g(repo, "rev-parse", "--abbrev-ref", "HEAD").trim(), "main");
  assert.equal(g(repo, "status", "--porcelain"), "");
  assert.deepEqual(wt.store.get("ses_aaaaaabbbbbb")?.made_branch, 1);
});

test("create: an existing branch is checked out as it is, not made again", async () => {
  const repo = makeRepo();
  g(repo, "branch", "feature");
  g(repo, "checkout", "-q", "feature");
  write(repo, "f.txt", "feature work\n");
  const tip = commitAll(repo, "feature work");
  g(repo, "checkout", "-q", "main");
  const { wt } = lifecycle();
  const plan = await wt.plan(repo, "feature");
  assert.equal(plan.exists, true);
  assert.equal(plan.baseCommit, g(repo, "rev-parse", "main").trim());
  const view = await wt.create(plan, { id: "ses_000000feat01", title: "x" });
  assert.equal(view.branch, "feature");
  assert.equal(g(view.path, "rev-parse", "HEAD").trim(), tip);
  assert.equal(wt.store.get("ses_000000feat01")?.made_branch, 0);
  // Not the relay's branch: it stays even once merged and the worktree is gone.
  g(repo, "merge", "-q", "--ff-only", "feature");
  const removal = await wt.remove("ses_000000feat01");
  assert.equal(removal?.removed, true);
  assert.equal(removal?.branchDeleted, false);
  assert.match(removal!.note, /not made by the relay/);
  assert.equal(g(repo, "rev-parse", "feature").trim(), tip);
});

test("plan refuses a folder outside a git repository, saying why, and makes nothing", async () => {
  const plain = tempDir("oar-plain-");
  const { deps, wt } = lifecycle();
  const e = await refusal(wt.plan(plain, "topic"));
  assert.equal(e.code, "REMOTE_RELAY_INVALID_INPUT");
  assert.match(
    e.message,
    /is not inside a git repository, so a session there cannot work in a worktree on branch "topic"\. Nothing was created\.$/,
  );
  const missing = await refusal(wt.plan(join(plain, "nope")));
  assert.match(missing.message, /is not a folder on this relay/);
  assert.deepEqual(readdirSync(join(deps.dataDir, "worktrees")), []);
});

test("plan refuses a branch already checked out in another worktree, naming the session that holds it", async () => {
  const repo = makeRepo();
  const { wt } = lifecycle({ ses_holder000001: "Payments refactor" });
  const first = await wt.create(await wt.plan(repo, "topic"), { id: "ses_holder000001", title: "Payments refactor" });
  const e = await refusal(wt.plan(repo, "topic"));
  assert.equal(e.code, "REMOTE_RELAY_INVALID_INPUT");
  assert.equal(
    e.message,
    `Branch "topic" is already checked out in ${first.path} by session "Payments refactor" (ses_holder000001); a branch can be checked out in one folder only. Nothing was created.`,
  );
  assert.deepEqual(e.extra.holder, { session: "ses_holder000001", title: "Payments refactor" });
  // The main folder's own branch: held by the folder, no session to name.
  const main = await refusal(wt.plan(repo, "main"));
  assert.match(main.message, new RegExp(`^Branch "main" is already checked out in ${repo}; `));
});

test("create checks the branch again: a plan made before another session took the branch is refused", async () => {
  const repo = makeRepo();
  const { wt } = lifecycle({ ses_first0000001: "First" });
  const a = await wt.plan(repo, "shared");
  const b = await wt.plan(repo, "shared");
  await wt.create(a, { id: "ses_first0000001", title: "First" });
  const e = await refusal(wt.create(b, { id: "ses_second000002", title: "Second" }));
  assert.match(e.message, /already checked out in .* by session "First" \(ses_first0000001\)/);
  assert.equal(wt.store.get("ses_second000002"), undefined);
});

test("plan refuses a bad branch name and a repository without a commit", async () => {
  const repo = makeRepo();
  const { wt } = lifecycle();
  for (const bad of ["-x", "a..b", "has space", "end."]) {
    const e = await refusal(wt.plan(repo, bad));
    assert.match(e.message, /is not a valid git branch name\. Nothing was created\.$/, bad);
  }
  const empty = join(tempDir(), "empty");
  mkdirSync(empty);
  g(empty, "init", "-q");
  const e = await refusal(wt.plan(empty, null));
  assert.match(e.message, /has no commit yet; a worktree needs one to start from/);
});

test("remove: a clean worktree goes and its unmerged branch stays; a dirty one stays and the answer says why", async () => {
  const repo = makeRepo();
  const { wt } = lifecycle();
  const done = await wt.create(await wt.plan(repo), { id: "ses_clean0000001", title: "Clean" });
  write(done.path, "src/b.ts", "export const b = 2;\n");
  const tip = commitAll(done.path, "b");
  const r1 = await wt.remove("ses_clean0000001");
  assert.equal(r1?.removed, true);
  assert.equal(existsSync(done.path), false);
  assert.equal(r1?.branchDeleted, false);
  assert.equal(r1?.note, `Its branch ${done.branch} stays until it is merged (1 commit not in main).`);
  assert.equal(g(repo, "rev-parse", done.branch).trim(), tip, "the unmerged commit is kept");

  const dirty = await wt.create(await wt.plan(repo), { id: "ses_dirty0000002", title: "Dirty" });
  write(dirty.path, "notes/todo.md", "half done\n");
  write(dirty.path, "README.md", "changed\n");
  const r2 = await wt.remove("ses_dirty0000002");
  assert.equal(r2?.removed, false);
  assert.ok(existsSync(join(dirty.path, "notes/todo.md")));
  assert.deepEqual(r2?.uncommitted, { count: 2, paths: ["README.md", "notes/todo.md"] });
  assert.equal(r2?.note, `Its worktree ${dirty.path} was kept: 2 uncommitted changes (README.md, notes/todo.md).`);
  assert.equal(wt.store.get("ses_dirty0000002")?.removed_at, null);
  assert.equal(await wt.remove("ses_nothing000000"), null);
});

test("a branch the relay made is deleted once merged, and only then", async () => {
  const repo = makeRepo();
  const { wt } = lifecycle();
  const v = await wt.create(await wt.plan(repo), { id: "ses_merged000001", title: "Merged" });
  write(v.path, "src/c.ts", "export const c = 3;\n");
  commitAll(v.path, "c");
  g(repo, "merge", "-q", "--ff-only", v.branch);
  const r = await wt.remove("ses_merged000001");
  assert.equal(r?.removed, true);
  assert.equal(r?.branchDeleted, true);
  assert.equal(r?.note, "");
  assert.throws(() => g(repo, "rev-parse", "--verify", "-q", `refs/heads/${v.branch}`));

  // Merged, then a new commit lands on the branch: it is no longer merged and stays.
  const w = await wt.create(await wt.plan(repo), { id: "ses_moved0000002", title: "Moved" });
  write(w.path, "d.txt", "d\n");
  commitAll(w.path, "d");
  g(repo, "merge", "-q", "--ff-only", w.branch);
  write(w.path, "e.txt", "e\n");
  const later = commitAll(w.path, "e after the merge");
  const r2 = await wt.remove("ses_moved0000002");
  assert.equal(r2?.branchDeleted, false);
  assert.equal(g(repo, "rev-parse", w.branch).trim(), later);
});

test("the second worktree of a repository comes from the spare, made from the current HEAD", async () => {
  const repo = makeRepo();
  const { deps, wt } = lifecycle();
  await wt.create(await wt.plan(repo), { id: "ses_spare0000001", title: "One" });
  await wt.spares.settled(repo);
  const spare = wt.folders.spare(repo);
  assert.ok(
    (await checkouts(deps.git, repo)).some((c) => c.path === spare && c.branch === null),
    "a spare is ready",
  );
  // HEAD moves after the spare was made: the next worktree still starts from HEAD.
  write(repo, "src/new.ts", "export const n = 1;\n");
  const head = commitAll(repo, "moved on");
  const v = await wt.create(await wt.plan(repo), { id: "ses_spare0000002", title: "Two" });
  assert.equal(g(v.path, "rev-parse", "HEAD").trim(), head);
  assert.equal(g(v.path, "rev-parse", "--abbrev-ref", "HEAD").trim(), "oar/two-000002");
  assert.equal(g(v.path, "status", "--porcelain"), "");
  assert.ok(existsSync(join(v.path, "src/new.ts")));
  const list = await checkouts(deps.git, repo);
  assert.ok(
    list.some((c) => c.path === v.path && c.branch === "oar/two-000002"),
    "the spare became the session's worktree",
  );
  await wt.spares.settled(repo);
  assert.ok(
    (await checkouts(deps.git, repo)).some((c) => c.path === spare),
    "and a new spare was made",
  );
  // HEAD did not move since: the spare only gets its branch (no file touched), and is whole.
  const third = await wt.create(await wt.plan(repo), { id: "ses_spare0000003", title: "Three" });
  assert.equal(g(third.path, "rev-parse", "--abbrev-ref", "HEAD").trim(), "oar/three-000003");
  assert.equal(g(third.path, "rev-parse", "HEAD").trim(), head);
  assert.equal(g(third.path, "status", "--porcelain", "--untracked-files=all"), "");
  assert.equal(g(third.path, "ls-files").split("\n").filter(Boolean).length, 3);
  write(third.path, "src/a.ts", "changed in three\n");
  commitAll(third.path, "three's commit");
  assert.equal(g(repo, "rev-parse", "main").trim(), head, "a commit there moves its branch, not main");
});

test("a spare left half-made by a crash is cleared, never taken", async () => {
  const repo = makeRepo();
  const { deps, wt } = lifecycle();
  const partial = join(wt.folders.of(repo), ".spare-new-deadbeef");
  g(repo, "worktree", "add", "-q", "--detach", partial, "HEAD");
  write(partial, "half-written.txt", "x");
  await wt.create(await wt.plan(repo), { id: "ses_crash0000001", title: "After a crash" });
  await wt.spares.settled(repo);
  assert.equal(existsSync(partial), false);
  assert.ok(!(await checkouts(deps.git, repo)).some((c) => c.path === partial));
});

test("a folder inside a worktree the relay made belongs to the same repository", async () => {
  const repo = makeRepo();
  const { wt } = lifecycle();
  const v = await wt.create(await wt.plan(repo), { id: "ses_parent000001", title: "Parent" });
  const plan = await wt.plan(join(v.path, "src"));
  assert.equal(plan.repo, repo);
  assert.equal(plan.base, v.branch, "a worktree made from there starts from that worktree's branch");
});

test("a branch name is checked as git checks it, without a git process", () => {
  const names = [
    "a/HEAD",
    "a.lock",
    "a/.b",
    "a..b",
    "a@{b",
    "@{-1}",
    "a/",
    "/a",
    "a//b",
    "a.",
    "a b",
    "a~b",
    "a^b",
    "a:b",
    "a?b",
    "a*b",
    "a[b",
    "a\\b",
    "é/ü",
    "-a",
    "a-",
    ".a",
    "a/b.lock/c",
    "x@",
    "@x",
    "a/@",
    "a.lock/b",
    "lock",
    "a/.lock",
    "HEAD/x",
    "HEAD",
    "feature/login",
    "a\tb",
    "a\u007fb",
    "oar/fix-the-login-page-6789ab",
    "a/b/",
  ];
  for (const name of names) {
    let git = true;
    try {
      execFileSync("git", ["check-ref-format", "--branch", name], { cwd: tempDir("oar-ref-"), stdio: "ignore" });
    } catch {
      git = false;
    }
    assert.equal(isBranchName(name), git, name);
  }
  // git's own word for HEAD is refused as a branch name too.
  assert.equal(isBranchName("@"), false);
});

test("after a restart the spare left from before is known again, so the first worktree takes it without a checkout", async () => {
  const repo = makeRepo();
  const deps = domainDeps();
  const first = new Worktrees({ ...deps, relayName: "desk", titleOf: () => null });
  await first.lifecycle.create(await first.lifecycle.plan(repo), { id: "ses_before000001", title: "Before" });
  await first.lifecycle.spares.settled(repo);
  const calls: string[][] = [];
  const git: typeof deps.git = (args, opts) => {
    calls.push(args);
    return deps.git(args, opts);
  };
  const again = new Worktrees({ ...deps, git, relayName: "desk", titleOf: () => null });
  await again.start();
  await again.lifecycle.spares.settled(repo);
  calls.length = 0;
  const v = await again.lifecycle.create(await again.lifecycle.plan(repo, "after/restart"), {
    id: "ses_after0000001",
    title: "After",
  });
  assert.equal(g(v.path, "rev-parse", "--abbrev-ref", "HEAD").trim(), "after/restart");
  assert.equal(g(v.path, "status", "--porcelain", "--untracked-files=all"), "");
  assert.deepEqual(
    calls.filter(
      (c) =>
        (c.includes("add") && !c.some((a) => a.includes(".spare-new-"))) || (c.includes("switch") && !c.includes("-c")),
    ),
    [],
    "no checkout: the spare only got its branch (the next spare is made after, in the background)",
  );
  await again.close();
});
