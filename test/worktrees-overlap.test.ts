// Overlap (contract §10.1): two unmerged worktrees of one repository, or one and the main
// folder's uncommitted changes, that change the same paths — committed or not, new untracked
// files included — told once per pair and set of paths, also after a restart.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { FIRST_LINE, LINE_PREFIX } from "../src/watching/event-lines.ts";
import { findOverlaps, MAIN, overlapLine, pathList } from "../src/worktrees/overlap.ts";
import type { Overlap } from "../src/worktrees/overlap-watch.ts";
import { Worktrees } from "../src/worktrees/worktrees.ts";
import { cleanTemps, commitAll, domainDeps, g, isolateGit, makeRepo, write } from "./helpers/git-repos.ts";

isolateGit();
after(cleanTemps);

test("findOverlaps: the pairs that change the same paths, each pair once, paths sorted", () => {
  const pairs = findOverlaps([
    { key: "ses_b", paths: new Set(["src/y.ts", "src/x.ts", "README.md"]) },
    { key: "ses_a", paths: new Set(["src/x.ts", "src/y.ts"]) },
    { key: "ses_c", paths: new Set(["docs/z.md"]) },
    { key: MAIN, paths: new Set(["README.md"]) },
  ]);
  assert.deepEqual(pairs, [
    { a: "main", b: "ses_b", paths: ["README.md"] },
    { a: "ses_a", b: "ses_b", paths: ["src/x.ts", "src/y.ts"] },
  ]);
  assert.deepEqual(findOverlaps([{ key: "ses_a", paths: new Set(["a"]) }]), []);
});

test("the overlap event reads as every relay event does", () => {
  const line = overlapLine({ id: "ses_a1", title: 'Fix "login"' }, { id: "ses_b2", title: "Cache" }, [
    "src/x.ts",
    "src/y.ts",
  ]);
  assert.equal(line, `session "Fix 'login'" (ses_a1): overlap with session "Cache" (ses_b2): src/x.ts, src/y.ts`);
  assert.equal(
    overlapLine({ id: "ses_a1", title: "A" }, { mainFolder: "/repo" }, ["README.md"]),
    `session "A" (ses_a1): overlap with uncommitted changes in the main folder /repo: README.md`,
  );
  // The watcher's message is FIRST_LINE then the line with the prefix (watching/event-lines.ts).
  assert.ok(FIRST_LINE.startsWith("[relay event"));
  assert.equal(`${LINE_PREFIX}${line}`.startsWith('[relay event] session "'), true);
  const many = Array.from({ length: 25 }, (_, i) => `f${String(i).padStart(2, "0")}`);
  assert.equal(pathList(many), `${many.slice(0, 20).join(", ")}, and 5 more`);
});

async function setup() {
  const repo = makeRepo({ "README.md": "hi\n", "src/x.ts": "x\n", "src/y.ts": "y\n", "src/z.ts": "z\n" });
  const deps = domainDeps();
  const told: Overlap[] = [];
  const w = new Worktrees({ ...deps, relayName: "desk", titleOf: () => null, onOverlap: (o) => told.push(o) });
  const a = await w.lifecycle.create(await w.lifecycle.plan(repo), { id: "ses_aaaaaaaaaaaa", title: "A" });
  const b = await w.lifecycle.create(await w.lifecycle.plan(repo), { id: "ses_bbbbbbbbbbbb", title: "B" });
  return { repo, deps, w, a, b, told };
}

test("two worktrees changing one path (committed in one, untracked in the other) overlap once per set of paths", async () => {
  const { repo, deps, w, a, b, told } = await setup();
  write(a.path, "src/x.ts", "x from A\n");
  commitAll(a.path, "A edits x");
  assert.deepEqual(await w.overlaps.changed("ses_aaaaaaaaaaaa"), [], "alone it overlaps nothing");
  write(b.path, "src/x.ts", "x from B\n");
  write(b.path, "src/new.ts", "only B\n");
  const first = await w.overlaps.changed("ses_bbbbbbbbbbbb");
  assert.deepEqual(first, [{ repo, a: "ses_aaaaaaaaaaaa", b: "ses_bbbbbbbbbbbb", paths: ["src/x.ts"] }]);
  assert.deepEqual(told, first, "onOverlap told it once");
  // Seen again, and from the other side: not told again.
  assert.deepEqual(await w.overlaps.changed("ses_bbbbbbbbbbbb"), []);
  assert.deepEqual(await w.overlaps.changed("ses_aaaaaaaaaaaa"), []);
  // The set grows: a new set of paths is told.
  write(a.path, "src/new.ts", "A made it too\n");
  const grown = await w.overlaps.changed("ses_aaaaaaaaaaaa");
  assert.deepEqual(
    grown.map((o) => o.paths),
    [["src/new.ts", "src/x.ts"]],
  );
  assert.equal(told.length, 2);
  assert.deepEqual(
    w.overlaps.currentFor("ses_bbbbbbbbbbbb").map((o) => o.paths),
    [["src/new.ts", "src/x.ts"]],
  );

  // A new relay on the same store (a restart) tells nothing twice.
  const again: Overlap[] = [];
  const w2 = new Worktrees({ ...deps, relayName: "desk", titleOf: () => null, onOverlap: (o) => again.push(o) });
  assert.deepEqual(await w2.overlaps.check(repo), []);
  assert.deepEqual(again, []);
});

test("the main folder's uncommitted changes overlap a worktree that changed the same path", async () => {
  const { repo, w, a } = await setup();
  write(a.path, "README.md", "A's readme\n");
  write(repo, "README.md", "owner edits by hand\n");
  write(repo, "src/z.ts", "owner\n");
  const o = await w.overlaps.changed("ses_aaaaaaaaaaaa");
  assert.deepEqual(o, [{ repo, a: "main", b: "ses_aaaaaaaaaaaa", paths: ["README.md"] }]);
});

test("a merged session no longer overlaps: its changes are in the base", async () => {
  const { repo, w, a, b } = await setup();
  write(a.path, "src/y.ts", "A\n");
  commitAll(a.path, "A");
  g(repo, "merge", "-q", "--ff-only", a.branch);
  write(b.path, "src/y.ts", "B\n");
  assert.deepEqual(await w.overlaps.changed("ses_aaaaaaaaaaaa"), []);
  assert.deepEqual(await w.overlaps.changed("ses_bbbbbbbbbbbb"), []);
});

test("changes seen while a check waits join it: one answer for all of them", async () => {
  const { w, a, b } = await setup();
  write(a.path, "src/z.ts", "A\n");
  write(b.path, "src/z.ts", "B\n");
  const [one, two, three] = await Promise.all([
    w.overlaps.changed("ses_aaaaaaaaaaaa"),
    w.overlaps.changed("ses_bbbbbbbbbbbb"),
    w.overlaps.changed("ses_aaaaaaaaaaaa"),
  ]);
  const all = [...one, ...two, ...three];
  assert.ok(all.length >= 1 && all.every((o) => o.paths.join() === "src/z.ts"));
  assert.equal(new Set(all).size, 1, "the same overlap, told once");
});

test("a change at known paths (a write through the relay, a tool call's diff) reads only those paths: no git pass over every file", async () => {
  const repo = makeRepo({ "README.md": "hi\n", "src/x.ts": "x\n", "src/y.ts": "y\n", "src/z.ts": "z\n" });
  const deps = domainDeps();
  const calls: string[][] = [];
  const git: typeof deps.git = (args, opts) => {
    calls.push(args);
    return deps.git(args, opts);
  };
  const told: Overlap[] = [];
  const w = new Worktrees({ ...deps, git, relayName: "desk", titleOf: () => null, onOverlap: (o) => told.push(o) });
  const a = await w.lifecycle.create(await w.lifecycle.plan(repo), { id: "ses_aaaaaaaaaaaa", title: "A" });
  const b = await w.lifecycle.create(await w.lifecycle.plan(repo), { id: "ses_bbbbbbbbbbbb", title: "B" });
  await w.lifecycle.spares.settled(repo);
  // Both read whole once (as at the end of a turn).
  assert.deepEqual(await w.overlaps.check(repo, ["ses_aaaaaaaaaaaa", "ses_bbbbbbbbbbbb"]), []);
  const whole = (c: string[]) => c.includes("status") && !c.includes("--");
  write(a.path, "src/x.ts", "x from A\n");
  write(b.path, "src/x.ts", "x from B\n");
  write(repo, "src/y.ts", "owner\n");
  calls.length = 0;
  assert.deepEqual(await w.overlaps.changed("ses_aaaaaaaaaaaa", [join(a.path, "src/x.ts")]), []);
  assert.deepEqual(await w.overlaps.changed("ses_bbbbbbbbbbbb", ["src/x.ts"]), [
    { repo, a: "ses_aaaaaaaaaaaa", b: "ses_bbbbbbbbbbbb", paths: ["src/x.ts"] },
  ]);
  assert.deepEqual(calls.filter(whole), [], "no status of a whole folder");
  assert.ok(
    calls.some((c) => c.includes("status") && c.at(-1) === "src/x.ts"),
    "a status of the path alone",
  );
  // A commit since the last read is seen (its commits read tree to tree), and so is a path
  // written back to what its base has (no longer changed).
  write(a.path, "src/y.ts", "y from A\n");
  commitAll(a.path, "A edits y");
  assert.deepEqual(
    (await w.overlaps.changed("ses_aaaaaaaaaaaa", ["src/y.ts"])).map((o) => [o.a, o.b, o.paths]),
    [["main", "ses_aaaaaaaaaaaa", ["src/y.ts"]]],
    "committed in A, uncommitted in the main folder (read at that path too)",
  );
  write(b.path, "src/x.ts", "x\n");
  await w.overlaps.changed("ses_bbbbbbbbbbbb", ["src/x.ts"]);
  assert.deepEqual(
    w.overlaps.currentFor("ses_bbbbbbbbbbbb"),
    [],
    "B's x.ts is as its base has it again: no overlap now",
  );
  assert.deepEqual(calls.filter(whole), []);
  // The end of a turn (paths unknown) reads the whole worktree: a file written past the relay is seen.
  write(b.path, "src/y.ts", "y from B's shell\n");
  const end = await w.overlaps.changed("ses_bbbbbbbbbbbb");
  assert.deepEqual(
    end.map((o) => [o.a, o.b, o.paths]),
    [
      ["main", "ses_bbbbbbbbbbbb", ["src/y.ts"]],
      ["ses_aaaaaaaaaaaa", "ses_bbbbbbbbbbbb", ["src/y.ts"]],
    ],
  );
  assert.ok(calls.some(whole));
});

test("a change at known paths is told while a whole read runs, and that read (older) does not undo what it saw", async () => {
  const repo = makeRepo({ "README.md": "hi\n", "src/x.ts": "x\n", "src/y.ts": "y\n" });
  const deps = domainDeps();
  let gate: Promise<void> | null = null;
  let open = () => {};
  let reached = () => {};
  const atGate = new Promise<void>((r) => (reached = r));
  // A whole status of B's worktree answers what it saw only once the gate opens (a slow pass).
  const git: typeof deps.git = async (args, opts) => {
    const r = await deps.git(args, opts);
    if (gate && args.includes("status") && !args.includes("--") && opts?.cwd?.includes("oar-b-")) {
      reached();
      await gate;
    }
    return r;
  };
  const w = new Worktrees({ ...deps, git, relayName: "desk", titleOf: () => null });
  const a = await w.lifecycle.create(await w.lifecycle.plan(repo, "oar-a-"), { id: "ses_aaaaaaaaaaaa", title: "A" });
  const b = await w.lifecycle.create(await w.lifecycle.plan(repo, "oar-b-"), { id: "ses_bbbbbbbbbbbb", title: "B" });
  await w.lifecycle.spares.settled(repo);
  assert.deepEqual(await w.overlaps.check(repo, ["ses_aaaaaaaaaaaa", "ses_bbbbbbbbbbbb"]), []);
  write(a.path, "src/x.ts", "x from A\n");
  write(a.path, "src/y.ts", "y from A\n");
  await w.overlaps.changed("ses_aaaaaaaaaaaa", ["src/x.ts", "src/y.ts"]);
  gate = new Promise((r) => (open = r));
  const slow = w.overlaps.changed("ses_bbbbbbbbbbbb"); // a turn's end: B read whole, held at the gate
  await atGate; // its status has run

  write(b.path, "src/y.ts", "y from B\n");
  const quick = await w.overlaps.changed("ses_bbbbbbbbbbbb", ["src/y.ts"]);
  assert.deepEqual(
    quick.map((o) => o.paths),
    [["src/y.ts"]],
    "told while the whole read still waits",
  );
  open();
  await slow;
  assert.deepEqual(
    w.overlaps.currentFor("ses_bbbbbbbbbbbb").map((o) => o.paths),
    [["src/y.ts"]],
    "the whole read, older, keeps y.ts as the read at its path saw it",
  );
});

test("a whole read (a turn's end) runs git at the lowest CPU priority; a read at known paths does not; both find the overlap", async () => {
  const repo = makeRepo({ "README.md": "hi\n", "src/x.ts": "x\n" });
  const deps = domainDeps();
  // The real git, noting which status reads asked for the background priority.
  const reads: { folder: string; paths: boolean; background: boolean }[] = [];
  const git: typeof deps.git = (args, opts) => {
    if (args.includes("status"))
      reads.push({ folder: opts?.cwd ?? "", paths: args.includes("--"), background: opts?.background === true });
    return deps.git(args, opts);
  };
  const told: Overlap[] = [];
  const w = new Worktrees({ ...deps, git, relayName: "desk", titleOf: () => null, onOverlap: (o) => told.push(o) });
  const a = await w.lifecycle.create(await w.lifecycle.plan(repo), { id: "ses_aaaaaaaaaaaa", title: "A" });
  const b = await w.lifecycle.create(await w.lifecycle.plan(repo), { id: "ses_bbbbbbbbbbbb", title: "B" });
  write(a.path, "src/x.ts", "x from A\n");
  write(b.path, "src/x.ts", "x from B\n");
  reads.length = 0;
  await w.overlaps.changed("ses_aaaaaaaaaaaa");
  const whole = reads.filter((r) => !r.paths);
  assert.ok(whole.some((r) => r.folder === a.path) && whole.some((r) => r.folder === repo));
  assert.ok(whole.every((r) => r.background));
  assert.deepEqual(
    told.map((o) => o.paths),
    [["src/x.ts"]],
  );
  reads.length = 0;
  write(b.path, "README.md", "B\n");
  write(a.path, "README.md", "A\n");
  await w.overlaps.changed("ses_aaaaaaaaaaaa", [join(a.path, "README.md")]);
  assert.ok(reads.length > 0 && reads.every((r) => r.paths && !r.background));
  await w.overlaps.changed("ses_bbbbbbbbbbbb", [join(b.path, "README.md")]);
  assert.deepEqual(
    told.map((o) => o.paths),
    [["src/x.ts"], ["README.md", "src/x.ts"]],
  );
});
