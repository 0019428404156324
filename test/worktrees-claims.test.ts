// Claims (contract §10.1) on a real SQLite file and the manual clock: the rules of `claim`,
// `release` and listing, REMOTE_RELAY_CLAIMED naming the holder, the ends (release, running
// out on the relay's clock, archive or delete, a merge), `check` for writes, and when two globs
// overlap.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { ManualClock, MINUTE } from "../src/core/clock.ts";
import { RelayError } from "../src/core/errors.ts";
import { compileGlob, globMatches, globsOverlap, normalizeClaimPath } from "../src/worktrees/claim-glob.ts";
import { Claims, claimedWords } from "../src/worktrees/claims.ts";
import { Worktrees } from "../src/worktrees/worktrees.ts";
import { cleanTemps, domainDeps, isolateGit, makeRepo } from "./helpers/git-repos.ts";

isolateGit();
after(cleanTemps);

const REPO = "/srv/app";
const TITLES: Record<string, string> = { ses_alice0000001: "Alice: API", ses_bob000000002: "Bob: docs" };

function claims() {
  const clock = new ManualClock(Date.parse("2026-12-01T10:00:00Z"));
  const deps = domainDeps(clock);
  return { clock, deps, c: new Claims({ ...deps, titleOf: (id) => TITLES[id] ?? null }) };
}

function refused(fn: () => unknown): RelayError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof RelayError, String(e));
    return e;
  }
  assert.fail("expected a refusal");
}

test("glob overlap is decided exactly: some path matches both, or none does", () => {
  const yes: [string, string][] = [
    ["src/**/*.ts", "src/api/*"],
    ["src/api", "src/api/x.ts"],
    ["**/*.md", "docs/*.md"],
    ["src/[a-c]*.ts", "src/b.ts"],
    ["src/{a,b}.ts", "src/b.ts"],
    ["a/**/b", "a/b"],
    ["a/**/b", "a/x/y/b"],
    ["**", "anything"],
    ["src/*", "src/a/b"],
    ["a/*/b", "a/b"],
    ["src/*.ts", "src/**"],
    ["src/\\*.ts", "src/*.ts"],
    ["lib/x?", "lib/xy/z"],
  ];
  const no: [string, string][] = [
    ["src/**/*.ts", "docs/**"],
    ["src/a.ts", "src/b.ts"],
    ["*.md", "docs/*.md"],
    ["src/[!a-z]*", "src/b.ts"],
    ["src/{a,b}.ts", "src/c.ts"],
    ["src/*.ts", "src/*.js"],
    ["lib/x?", "lib/x/y"],
    ["src/\\*.ts", "src/a.ts"],
    ["src/api", "src/apix"],
  ];
  for (const [a, b] of yes) assert.equal(globsOverlap(compileGlob(a), compileGlob(b)), true, `${a} ∩ ${b}`);
  for (const [a, b] of no) assert.equal(globsOverlap(compileGlob(a), compileGlob(b)), false, `${a} ∩ ${b}`);
  for (const [a, b] of [...yes, ...no])
    assert.equal(
      globsOverlap(compileGlob(a), compileGlob(b)),
      globsOverlap(compileGlob(b), compileGlob(a)),
      "symmetric",
    );
  assert.equal(globMatches(compileGlob("src/**/*.ts"), "src/x.ts"), true);
  assert.equal(globMatches(compileGlob("src/**/*.ts"), "src/a/b/x.ts"), true);
  assert.equal(globMatches(compileGlob("src/*.ts"), "src/a/x.ts"), false);
  assert.equal(globMatches(compileGlob("src/api"), "src/api/deep/x.ts"), true);
  assert.deepEqual(normalizeClaimPath("./src//api/"), { path: "src/api" });
  assert.match((normalizeClaimPath("/etc/passwd") as { error: string }).error, /absolute/);
  assert.match((normalizeClaimPath("src/../../x") as { error: string }).error, /leaves the repository/);
});

test("claim answers claim_id and the claim: paths, holder, note, endsAt (default 60 minutes)", () => {
  const { c } = claims();
  const r = c.claim({
    session: "ses_alice0000001",
    repo: REPO,
    paths: ["./src/api/**", "src/api/**"],
    note: "moving routes",
  });
  assert.match(r.claim_id, /^clm_[a-z0-9]{12}$/);
  assert.deepEqual(r.claim, {
    id: r.claim_id,
    repo: REPO,
    paths: ["src/api/**"],
    holder: { session: "ses_alice0000001", title: "Alice: API" },
    note: "moving routes",
    createdAt: "2026-12-01T10:00:00.000Z",
    endsAt: "2026-12-01T11:00:00.000Z",
    active: true,
  });
  assert.equal(
    c.claim({ session: "ses_alice0000001", repo: REPO, paths: ["x"], minutes: 480 }).claim.endsAt,
    "2026-12-01T18:00:00.000Z",
  );
});

test("bad claims are refused with INVALID_INPUT and store nothing", () => {
  const { c } = claims();
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ paths: [] }, /needs paths/],
    [{ paths: ["/abs/x"] }, /is absolute/],
    [{ paths: ["../x"] }, /leaves the repository/],
    [{ paths: ["a"], minutes: 0 }, /minutes is a whole number from 1 to 480/],
    [{ paths: ["a"], minutes: 481 }, /minutes is a whole number from 1 to 480/],
    [{ paths: ["a"], minutes: 1.5 }, /minutes is a whole number/],
    [{ paths: ["a"], note: 7 }, /note as text/],
    [{ paths: [3] }, /paths as strings/],
  ];
  for (const [input, words] of cases) {
    const e = refused(() => c.claim({ session: "ses_alice0000001", repo: REPO, ...input } as never));
    assert.equal(e.code, "REMOTE_RELAY_INVALID_INPUT");
    assert.match(e.message, words);
    assert.match(e.message, /Nothing was claimed\.$/);
  }
  assert.deepEqual(c.list(REPO), []);
});

test("a claim overlapping another session's live claim is refused with REMOTE_RELAY_CLAIMED naming the holder, note and end", () => {
  const { c } = claims();
  const held = c.claim({
    session: "ses_alice0000001",
    repo: REPO,
    paths: ["src/api/**"],
    minutes: 30,
    note: "moving routes",
  });
  const e = refused(() => c.claim({ session: "ses_bob000000002", repo: REPO, paths: ["docs/**", "src/**/*.ts"] }));
  assert.equal(e.code, "REMOTE_RELAY_CLAIMED");
  assert.equal(
    e.message,
    `src/**/*.ts overlaps a claim of session "Alice: API" (ses_alice0000001): src/api/** until 2026-12-01T10:30:00.000Z ("moving routes"). Nothing was claimed.`,
  );
  assert.deepEqual(e.extra.claim, held.claim);
  // Disjoint paths, another repository, and the holder itself are fine.
  c.claim({ session: "ses_bob000000002", repo: REPO, paths: ["docs/**"] });
  c.claim({ session: "ses_bob000000002", repo: "/srv/other", paths: ["src/**"] });
  c.claim({ session: "ses_alice0000001", repo: REPO, paths: ["src/api/routes.ts"] });
  assert.equal(c.list(REPO).length, 3);
});

test("at most 20 live claims per conversation", () => {
  const { c } = claims();
  for (let i = 0; i < 20; i++) c.claim({ session: "ses_alice0000001", repo: REPO, paths: [`f${i}`] });
  const e = refused(() => c.claim({ session: "ses_alice0000001", repo: REPO, paths: ["f20"] }));
  assert.equal(e.code, "REMOTE_RELAY_LIMIT");
  assert.match(e.message, /holds 20 claims, the most it may hold \(20\); release one first\. Nothing was claimed\.$/);
  c.release("ses_alice0000001", c.list(REPO)[0].id);
  c.claim({ session: "ses_alice0000001", repo: REPO, paths: ["f20"] });
});

test("a claim ends when it runs out on the relay's clock, on release, on archive or delete and on a merge", async () => {
  const { c, clock } = claims();
  const a = c.claim({ session: "ses_alice0000001", repo: REPO, paths: ["src/**"], minutes: 10 });
  assert.ok(c.check(REPO, "src/x.ts", "ses_bob000000002"));
  await clock.advance(10 * MINUTE);
  assert.equal(c.check(REPO, "src/x.ts", "ses_bob000000002"), null, "ran out");
  const ended = c.list(REPO).find((v) => v.id === a.claim_id)!;
  assert.deepEqual([ended.active, ended.endReason, ended.endedAt], [false, "expired", "2026-12-01T10:10:00.000Z"]);
  c.claim({ session: "ses_bob000000002", repo: REPO, paths: ["src/**"] }); // free again

  const r = c.claim({ session: "ses_alice0000001", repo: REPO, paths: ["lib/**"] });
  assert.deepEqual(
    c.release("ses_alice0000001", r.claim_id).released.map((v) => [v.id, v.endReason]),
    [[r.claim_id, "released"]],
  );
  assert.deepEqual(c.release("ses_alice0000001", r.claim_id).released, [], "already ended");
  const other = refused(() => c.release("ses_alice0000001", c.list(REPO).find((v) => v.active)!.id));
  assert.equal(other.code, "REMOTE_RELAY_FORBIDDEN");
  assert.equal(refused(() => c.release("ses_alice0000001", "clm_nope")).code, "REMOTE_RELAY_NOT_FOUND");

  c.claim({ session: "ses_alice0000001", repo: REPO, paths: ["a/**"] });
  c.claim({ session: "ses_alice0000001", repo: "/srv/other", paths: ["a/**"] });
  assert.equal(c.endFor("ses_alice0000001", "merged", REPO), 1);
  assert.equal(c.endFor("ses_alice0000001", "archived"), 1);
  assert.equal(c.check(REPO, "a/x", "ses_bob000000002"), null);
  // Ended ones stay listed for an hour, then drop out: Bob's ran out a minute ago, Alice's
  // ended an hour and a minute ago.
  await clock.advance(61 * MINUTE);
  assert.deepEqual(
    c.list(REPO).map((v) => [v.holder.session, v.active, v.endReason]),
    [["ses_bob000000002", false, "expired"]],
  );
});

test("check names who holds a path against another session's write, never against the holder's own", () => {
  const { c } = claims();
  c.claim({ session: "ses_alice0000001", repo: REPO, paths: ["src/api"], minutes: 15, note: "moving routes" });
  const hit = c.check(REPO, "src/api/routes/users.ts", "ses_bob000000002");
  assert.equal(hit?.holder.session, "ses_alice0000001");
  assert.equal(c.check(REPO, "src/api/routes/users.ts", "ses_alice0000001"), null);
  assert.equal(c.check(REPO, "src/apiary.ts", "ses_bob000000002"), null);
  assert.equal(c.check("/srv/other", "src/api/x.ts", "ses_bob000000002"), null);
  assert.equal(
    claimedWords(hit!, "src/api/routes/users.ts"),
    `src/api/routes/users.ts is claimed by session "Alice: API" (ses_alice0000001) until 2026-12-01T10:15:00.000Z ("moving routes"); write elsewhere or ask that session to release it.`,
  );
});

test("whereIs maps a file the relay is asked to write to its repository and path there", async () => {
  const repo = makeRepo();
  const deps = domainDeps();
  const w = new Worktrees({ ...deps, relayName: "desk", titleOf: () => null });
  const v = await w.lifecycle.create(await w.lifecycle.plan(repo), { id: "ses_where0000001", title: "Where" });
  assert.deepEqual(w.whereIs(join(v.path, "src/a.ts")), { repo, path: "src/a.ts" });
  assert.deepEqual(
    w.whereIs(join(v.path, "new/dir/file.ts")),
    { repo, path: "new/dir/file.ts" },
    "in folders not made yet",
  );
  assert.deepEqual(
    w.whereIs(join(v.path, "src/new.ts")),
    { repo, path: "src/new.ts" },
    "a new file in an existing folder",
  );
  assert.equal(w.whereIs(join(repo, "src/a.ts")), null, "the main folder counts once it has a claim");
  w.claims.claim({ session: "ses_where0000001", repo, paths: ["src/**"] });
  assert.deepEqual(w.whereIs(join(repo, "src/a.ts")), { repo, path: "src/a.ts" });
  // Archive ends the session's claims.
  await w.ended("ses_where0000001", "archived");
  assert.equal(w.claims.check(repo, "src/a.ts", "ses_someone_else"), null);
});
