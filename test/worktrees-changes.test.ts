// `changes` of a worktree session against its base (contract §10.1) on real repositories:
// committed, uncommitted and new untracked files together, renames and binaries, ahead and
// behind, and the unified diff `GET /api/sessions/:id/changes` answers.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { changedPaths, changesOf } from "../src/worktrees/changes.ts";
import { WorktreeLifecycle } from "../src/worktrees/lifecycle.ts";
import { Worktrees } from "../src/worktrees/worktrees.ts";
import { cleanTemps, commitAll, domainDeps, g, isolateGit, makeRepo, write } from "./helpers/git-repos.ts";

isolateGit();
after(cleanTemps);

const FILES = {
  "README.md": "hello\n",
  "src/a.ts": "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n",
  "src/old-name.ts": "export const moved = true;\nexport const kept = 1;\nexport const also = 2;\n",
  "docs/gone.md": "bye\n",
};

async function session(id = "ses_changes00001") {
  const repo = makeRepo(FILES);
  const deps = domainDeps();
  const wt = new WorktreeLifecycle({ ...deps, titleOf: () => null });
  const view = await wt.create(await wt.plan(repo), { id, title: "Changes" });
  return { repo, deps, view, ref: { path: view.path, base: view.base, baseCommit: view.baseCommit } };
}

test("a fresh worktree has no changes", async () => {
  const { deps, ref } = await session();
  assert.deepEqual(await changesOf(deps.git, ref), { files: [], ahead: 0, behind: 0, dirty: false });
});

test("changes count commits, uncommitted edits and new untracked files, each once, against base", async () => {
  const { deps, view, ref } = await session();
  const p = view.path;
  write(p, "src/a.ts", `${FILES["src/a.ts"].replace("5\n", "five\n")}11\n`);
  g(p, "mv", "src/old-name.ts", "src/new-name.ts");
  g(p, "rm", "-q", "docs/gone.md");
  commitAll(p, "edit, rename, delete");
  write(p, "README.md", "hello\nmore\n"); // uncommitted edit of a tracked file
  write(p, "notes/new.md", "one\ntwo\nthree\n"); // new untracked file in a new folder
  writeFileSync(join(p, "logo.bin"), Buffer.from([0, 1, 2, 0, 255]));
  const c = await changesOf(deps.git, ref);
  assert.equal(c.ahead, 1);
  assert.equal(c.behind, 0);
  assert.equal(c.dirty, true);
  const byPath = Object.fromEntries(c.files.map((f) => [f.path, f]));
  assert.deepEqual(byPath["src/a.ts"], { path: "src/a.ts", status: "modified", added: 2, removed: 1 });
  assert.deepEqual(byPath["src/new-name.ts"], {
    path: "src/new-name.ts",
    from: "src/old-name.ts",
    status: "renamed",
    added: 0,
    removed: 0,
  });
  assert.deepEqual(byPath["docs/gone.md"], { path: "docs/gone.md", status: "deleted", added: 0, removed: 1 });
  assert.deepEqual(byPath["README.md"], { path: "README.md", status: "modified", added: 1, removed: 0 });
  assert.deepEqual(byPath["notes/new.md"], { path: "notes/new.md", status: "added", added: 3, removed: 0 });
  assert.deepEqual(byPath["logo.bin"], { path: "logo.bin", status: "added", added: 0, removed: 0, binary: true });
  assert.equal(c.files.length, 6);
  // What overlap compares: the same files, a rename by both its names.
  const touched = await changedPaths(deps.git, ref);
  assert.deepEqual([...new Set([...touched.committed, ...touched.uncommitted])].sort(), [
    "README.md",
    "docs/gone.md",
    "logo.bin",
    "notes/new.md",
    "src/a.ts",
    "src/new-name.ts",
    "src/old-name.ts",
  ]);
  // Reading the changes put nothing into the worktree's index: the new files are still untracked.
  assert.match(g(p, "status", "--porcelain"), /^\?\? logo\.bin$/m);
  assert.match(g(p, "status", "--porcelain"), /^\?\? notes\/$/m);
});

test("work merged into base meanwhile is not the session's: behind counts it, files do not", async () => {
  const { repo, deps, view, ref } = await session();
  write(view.path, "src/mine.ts", "mine\n");
  commitAll(view.path, "mine");
  write(repo, "src/theirs.ts", "theirs\n");
  commitAll(repo, "theirs, on main");
  const c = await changesOf(deps.git, ref);
  assert.deepEqual(c, {
    files: [{ path: "src/mine.ts", status: "added", added: 1, removed: 0 }],
    ahead: 1,
    behind: 1,
    dirty: false,
  });
});

test("the diff is unified with 3 lines of context and includes new untracked files", async () => {
  const { deps, view, ref } = await session();
  write(view.path, "src/a.ts", FILES["src/a.ts"].replace("5\n", "five\n"));
  write(view.path, "fresh.txt", "brand new\n");
  const c = await changesOf(deps.git, ref, { diff: true });
  assert.match(c.diff, /^diff --git a\/src\/a\.ts b\/src\/a\.ts$/m);
  assert.match(c.diff, /@@ -2,7 \+2,7 @@\n 2\n 3\n 4\n-5\n\+five\n 6\n 7\n 8\n/);
  assert.match(
    c.diff,
    /diff --git a\/fresh\.txt b\/fresh\.txt\nnew file mode 100644\n[^\n]*\n--- \/dev\/null\n\+\+\+ b\/fresh\.txt\n@@ -0,0 \+1 @@\n\+brand new\n/,
  );
  assert.equal(c.diffTruncated, undefined);
});

test("Worktrees.changes answers for a live worktree session and null for any other", async () => {
  const repo = makeRepo(FILES);
  const deps = domainDeps();
  const w = new Worktrees({ ...deps, relayName: "desk", titleOf: () => null });
  const v = await w.lifecycle.create(await w.lifecycle.plan(repo), { id: "ses_facade000001", title: "Facade" });
  write(v.path, "x.txt", "x\n");
  const c = await w.changes("ses_facade000001", { diff: true });
  assert.equal(c?.files[0].path, "x.txt");
  assert.match(c!.diff, /\+x\n/);
  assert.equal(await w.changes("ses_other0000000"), null);
  assert.deepEqual(w.view("ses_facade000001"), v);
  assert.equal(w.view("ses_other0000000"), null);
});
