// Parallel work in one repository through a real relay (contract §10.1, issue 20 phase B): a
// scripted lead starts sessions with the worktrees setting "agents", each works in its own
// worktree on its own branch while the main folder stays untouched; two change one file and
// their watchers get one `overlap`; a claim refuses another session's write through the
// relay's ACP file system; merges land, conflict, fail their tests or meet a dirty target;
// archive keeps a dirty worktree; branch refusals. Real git repositories, real relay
// processes, the real MCP client, the scripted agent as a real ACP child process.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { TestRelay, type McpSession } from "./helpers/relay-process.ts";
import { FIRST, SLOW, toolInTurn, waitEvents } from "./helpers/watch.ts";
import { cleanTemps, g, isolateGit, makeRepo, tempDir, write } from "./helpers/git-repos.ts";

isolateGit();
let relay: TestRelay;
let repo: string;
let lead: string;
let mcp: McpSession;

before(async () => {
  relay = await TestRelay.start({ settings: { worktrees: "agents" } });
  repo = makeRepo({ "README.md": "hello\n", "src/shared.ts": "export const v = 1;\n", "package.json": "{}\n" });
  lead = await relay.createSession({ title: "Lead", cwd: repo });
  mcp = await relay.mcp(lead);
  // The lead's first create_session asks the owner once (allowed here); later ones go straight.
  const first = await toolInTurn(relay, lead, {
    action: "create_session",
    relay: "this",
    provider: "scripted",
    title: "Warm-up",
    text: "ready",
    wait_seconds: 60,
  });
  assert.equal(first.result.ok, true, JSON.stringify(first.result));
});
after(async () => {
  await relay.stop();
  cleanTemps();
});

/** A session the lead starts (in a worktree, by the setting); resolves with create_session's result. */
async function start(title: string, text = "ready", extra: Record<string, unknown> = {}) {
  const r = await mcp.call({
    action: "create_session",
    relay: "this",
    provider: "scripted",
    title,
    text,
    wait_seconds: 60,
    ...extra,
  });
  assert.equal(r.ok, true, JSON.stringify(r));
  return r;
}
const say = (id: string, text: string) => relay.say(id, text, SLOW);

test("sessions an agent starts work each in a worktree of their own on their own branch; the main folder stays untouched", async () => {
  const a = await start("Alpha work", "/write src/alpha.ts export const alpha = 1;\\n\n/commit alpha");
  const b = await start("Beta work", "/write src/beta.ts export const beta = 2;\\n");
  for (const r of [a, b]) {
    assert.equal(r.worktree.repo, repo);
    assert.equal(r.worktree.base, "main");
    assert.equal(r.worktree.baseCommit, g(repo, "rev-parse", "main").trim());
    assert.match(
      r.worktree.branch,
      new RegExp(`^oar/${r.title.toLowerCase().replace(" ", "-")}-${r.session.slice(-6)}$`),
    );
    assert.ok(r.worktree.path.startsWith(join(relay.dataDir, "worktrees")), r.worktree.path);
  }
  assert.match(a.reply.text, /^commit: [0-9a-f]{7,}$/m);
  assert.equal(readFileSync(join(a.worktree.path, "src/alpha.ts"), "utf8"), "export const alpha = 1;\n");
  assert.equal(existsSync(join(repo, "src/alpha.ts")), false, "the main folder is untouched");
  assert.equal(existsSync(join(repo, "src/beta.ts")), false);
  assert.equal(g(repo, "status", "--porcelain"), "");
  assert.equal(g(repo, "branch", "--show-current").trim(), "main");

  const list = await mcp.call({ action: "list_sessions", relay: "this" });
  assert.equal(list.sessions.find((s: any) => s.id === a.session).branch, a.worktree.branch);
  assert.equal(list.sessions.find((s: any) => s.id === lead).branch, undefined, "a session in a folder has no branch");

  const read = await mcp.call({ action: "read_session", relay: "this", session: b.session });
  assert.deepEqual(read.worktree, b.worktree);
  assert.deepEqual(read.changes, {
    files: [{ path: "src/beta.ts", status: "added", added: 1, removed: 0 }],
    ahead: 0,
    behind: 0,
    dirty: true,
  });
  const detail = await relay.session(a.session);
  assert.deepEqual(detail.worktree, a.worktree);
  assert.equal(detail.cwd, a.worktree.path);
  const changes = (await relay.api("GET", `/api/sessions/${a.session}/changes`)).json;
  assert.equal(changes.ahead, 1);
  assert.match(changes.diff, /^\+export const alpha = 1;$/m);
  assert.equal((await relay.api("GET", `/api/sessions/${lead}/changes`)).json.code, "REMOTE_RELAY_INVALID_INPUT");
});

test("two sessions changing one file: the watchers of each get one overlap, a watcher of both once", async () => {
  const a = await start("Left");
  const b = await start("Right");
  const other = await relay.createSession({ title: "Other watcher" });
  const sub = await toolInTurn(relay, lead, {
    action: "subscribe",
    relay: "this",
    sessions: [a.session, b.session],
    events: ["overlap"],
  });
  assert.equal(sub.result.ok, true, JSON.stringify(sub.result));
  const sub2 = await toolInTurn(relay, other, {
    action: "subscribe",
    relay: "this",
    sessions: [b.session],
    events: ["overlap"],
  });
  assert.equal(sub2.result.ok, true, JSON.stringify(sub2.result));

  await say(a.session, "/write src/shared.ts export const v = 2;\\n");
  await say(b.session, "/write src/shared.ts export const v = 3;\\n\n/write README.md changed\\n");
  // Seen by the end of that turn at the latest: the first overlap is told before the set grows.
  await relay.waitFor(
    async () => (await relay.session(a.session)).overlaps?.[0]?.paths.join() === "src/shared.ts",
    SLOW,
  );
  await say(a.session, "/write README.md also changed\\n");
  // Seen at the latest by the end of the turn that made it; the page marks both sessions.
  await relay.waitFor(async () => (await relay.session(a.session)).overlaps?.[0]?.paths.length === 2, SLOW);
  assert.deepEqual((await relay.session(a.session)).overlaps, [
    { session: b.session, title: "Right", paths: ["README.md", "src/shared.ts"] },
  ]);
  assert.deepEqual((await relay.session(b.session)).overlaps, [
    { session: a.session, title: "Left", paths: ["README.md", "src/shared.ts"] },
  ]);
  await relay.advance(30_000);
  const leadEvents = await waitEvents(relay, lead, 1);
  const otherEvents = await waitEvents(relay, other, 1);
  // The lead watches both: each overlap once, in the words of one side.
  const lines = leadEvents
    .join("\n")
    .split("\n")
    .filter((l) => l.includes(": overlap with "));
  const pair = new RegExp(
    `^\\[relay event\\] session "(Left|Right)" \\((${a.session}|${b.session})\\): overlap with session "(Left|Right)" \\((${a.session}|${b.session})\\): (.*)$`,
  );
  assert.deepEqual(
    lines.map((l) => pair.exec(l)?.[5]),
    ["src/shared.ts", "README.md, src/shared.ts"],
    lines.join("\n"),
  );
  assert.deepEqual(otherEvents, [
    `${FIRST}\n[relay event] session "Right" (${b.session}): overlap with session "Left" (${a.session}): src/shared.ts` +
      `\n[relay event] session "Right" (${b.session}): overlap with session "Left" (${a.session}): README.md, src/shared.ts`,
  ]);
});

test("a claim refuses another session's write through the relay, names its holder, and ends on release and on the clock", async () => {
  const holder = await start("Holder");
  const writer = await start("Writer");
  const c = await mcp.call({ action: "claim", paths: ["src/api/**"], minutes: 5, note: "reworking the API" });
  assert.equal(c.ok, true, JSON.stringify(c));
  assert.match(c.claim_id, /^clm_/);
  assert.deepEqual(c.claim.paths, ["src/api/**"]);
  assert.equal(c.claim.holder.session, lead);

  const refused = await say(writer.session, "/write src/api/routes.ts export {};\\n");
  assert.equal(
    refused.text,
    `write refused: src/api/routes.ts is claimed by session "Lead" (${lead}) until ${c.claim.endsAt} ("reworking the API"); write elsewhere or ask that session to release it.`,
  );
  assert.equal(existsSync(join(writer.worktree.path, "src/api/routes.ts")), false, "nothing was written");
  const elsewhere = await say(writer.session, "/write src/other.ts ok\\n");
  assert.equal(elsewhere.text, "");
  assert.equal(readFileSync(join(writer.worktree.path, "src/other.ts"), "utf8"), "ok\n");

  // Another conversation's overlapping claim is refused, naming the holder.
  const clash = JSON.parse(
    (
      await say(holder.session, `/tool ${JSON.stringify({ action: "claim", relay: "this", paths: ["src/**/*.ts"] })}`)
    ).text.slice(6),
  );
  assert.equal(clash.code, "REMOTE_RELAY_CLAIMED");
  assert.match(
    clash.error,
    /src\/\*\*\/\*\.ts overlaps a claim of session "Lead" .*src\/api\/\*\* until .* \("reworking the API"\)\. Nothing was claimed\.$/,
  );
  const list = await mcp.call({ action: "list_claims", relay: "this", session: writer.session });
  assert.equal(list.repo, repo);
  assert.deepEqual(
    list.claims.map((x: any) => [x.id, x.active]),
    [[c.claim_id, true]],
  );
  const notMine = JSON.parse(
    (await say(holder.session, `/tool ${JSON.stringify({ action: "release", claim_id: c.claim_id })}`)).text.slice(6),
  );
  assert.equal(notMine.code, "REMOTE_RELAY_FORBIDDEN");

  const r = await mcp.call({ action: "release", claim_id: "all" });
  assert.deepEqual(
    r.released.map((x: any) => x.id),
    [c.claim_id],
  );
  assert.equal(
    (await say(writer.session, "/write src/api/routes.ts export {};\\n")).text,
    "",
    "released: the write goes through",
  );

  // Runs out on the relay's clock.
  const short = await mcp.call({ action: "claim", paths: ["docs"], minutes: 1 });
  assert.match(
    (await say(writer.session, "/write docs/a.md a\\n")).text,
    /^write refused: docs\/a\.md is claimed by session "Lead"/,
  );
  await relay.advance(60_000);
  assert.equal((await say(writer.session, "/write docs/a.md a\\n")).text, "");
  const ended = (await mcp.call({ action: "list_claims" })).claims.find((x: any) => x.id === short.claim_id);
  assert.equal(ended.active, false);
  assert.equal(ended.endReason, "expired");
  const remote = await mcp.call({ action: "claim", relay: "elsewhere", paths: ["x"] });
  assert.equal(remote.code, "REMOTE_RELAY_UNSUPPORTED");
});

test("merges: disjoint branches land one on top of the other, a conflict and failing tests change nothing, a dirty target is BUSY", async () => {
  const one = await start("One", "/write src/one.ts export const one = 1;\\n\n/commit one");
  const two = await start("Two", "/write src/two.ts export const two = 2;\\n\n/commit two");
  const three = await start("Three", "/write src/one.ts export const one = 3;\\n\n/commit three conflicts with one");

  const m1 = await mcp.call({
    action: "merge",
    session: one.session,
    wait_seconds: 60,
    test: "test -f src/one.ts && echo '1 passing'",
  });
  assert.equal(m1.ok, true, JSON.stringify(m1));
  assert.equal(m1.status, "merged");
  assert.equal(m1.fastForward, true);
  assert.equal(m1.updatedFolder, repo);
  assert.equal(g(repo, "rev-parse", "main").trim(), m1.commit);
  assert.equal(
    readFileSync(join(repo, "src/one.ts"), "utf8"),
    "export const one = 1;\n",
    "the clean checked-out target was brought forward",
  );

  // The owner's Merge (POST /api/sessions/:id/merge) takes the same body.
  const m2 = (await relay.api("POST", `/api/sessions/${two.session}/merge`, { wait_seconds: 60 })).json;
  assert.equal(m2.status, "merged", JSON.stringify(m2));
  assert.equal(m2.fastForward, false);
  assert.equal(g(repo, "rev-parse", "main^1").trim(), m1.commit, "merged on top of the last");
  assert.ok(existsSync(join(repo, "src/two.ts")));

  const before = g(repo, "rev-parse", "main").trim();
  const m3 = await mcp.call({ action: "merge", session: three.session, wait_seconds: 60 });
  assert.deepEqual([m3.ok, m3.status, m3.files], [true, "conflict", ["src/one.ts"]]);
  assert.equal(g(repo, "rev-parse", "main").trim(), before, "nothing changed");

  const four = await start("Four", "/write lib/four.ts x\\n\n/commit four");
  const failing = await mcp.call({
    action: "merge",
    session: four.session,
    wait_seconds: 60,
    test: "printf '# tests 4\\n# pass 3\\n# fail 1\\n'; exit 1",
  });
  assert.equal(failing.status, "tests_failed");
  assert.equal(failing.exitCode, 1);
  assert.deepEqual([failing.counts.passed, failing.counts.failed], [3, 1]);
  assert.equal(g(repo, "rev-parse", "main").trim(), before);

  write(repo, "README.md", "dirty\n");
  const busy = await mcp.call({ action: "merge", session: four.session });
  assert.equal(busy.code, "REMOTE_RELAY_BUSY");
  assert.match(busy.error, new RegExp(repo.replace(/[/.]/g, "\\$&")));
  g(repo, "checkout", "--", "README.md");

  // No wait: queued with its place, and `wait` with merge_id waits on.
  const queued = await mcp.call({ action: "merge", session: four.session, wait_seconds: 0, test: "true" });
  assert.match(queued.merge_id, /^mrg_/);
  const settled = await mcp.call({ action: "wait", relay: "this", merge_id: queued.merge_id, wait_seconds: 60 });
  assert.equal(settled.status, "merged", JSON.stringify(settled));
  const plain = await mcp.call({ action: "merge", session: lead });
  assert.equal(plain.code, "REMOTE_RELAY_INVALID_INPUT");
});

test("archive keeps a worktree with uncommitted changes and says so; a clean one goes, its claims end", async () => {
  const dirty = await start("Dirty", "/write notes.txt unsaved\\n");
  const clean = await start("Clean", "ready");
  const a = await mcp.call({ action: "archive", relay: "this", session: dirty.session });
  assert.equal(a.ok, true, JSON.stringify(a));
  assert.match(a.note, /was kept: 1 uncommitted change \(notes\.txt\)/);
  assert.ok(existsSync(join(dirty.worktree.path, "notes.txt")));
  const b = (await relay.api("POST", `/api/sessions/${clean.session}/archive`)).json;
  assert.equal(b.archived, true);
  assert.equal(existsSync(clean.worktree.path), false, "a clean worktree is removed");
});

test("branch is refused outside a repository and when another worktree holds it; the owner can start one on a branch", async () => {
  const plain = tempDir("oar-plain-");
  const outside = await mcp.call({
    action: "create_session",
    relay: "this",
    provider: "scripted",
    text: "x",
    cwd: plain,
    branch: "feature/x",
  });
  assert.equal(outside.code, "REMOTE_RELAY_INVALID_INPUT");
  assert.match(outside.error, /is not inside a git repository.*Nothing was created\.$/);
  const held = await start("Holder of a branch", "ready", { branch: "feature/held" });
  assert.equal(held.worktree.branch, "feature/held");
  const again = await mcp.call({
    action: "create_session",
    relay: "this",
    provider: "scripted",
    text: "x",
    branch: "feature/held",
  });
  assert.equal(again.code, "REMOTE_RELAY_INVALID_INPUT");
  assert.match(
    again.error,
    new RegExp(
      `Branch "feature/held" is already checked out in .* by session "Holder of a branch" \\(${held.session}\\)`,
    ),
  );
  const owner = await relay.api("POST", "/api/sessions", {
    provider: "scripted",
    title: "Owner's",
    cwd: repo,
    branch: "owner/one",
  });
  assert.equal(owner.status, 201, JSON.stringify(owner.json));
  assert.equal(owner.json.worktree.branch, "owner/one");
  assert.equal(owner.json.branch, "owner/one");
  const ownerPlain = await relay.api("POST", "/api/sessions", {
    provider: "scripted",
    title: "Owner's plain",
    cwd: repo,
  });
  assert.equal(
    ownerPlain.json.worktree,
    undefined,
    'the setting "agents" leaves the owner\'s sessions in their folder',
  );
  // "all": the owner's new sessions too, unless New session unticks it; a folder outside a repository stays plain.
  await relay.api("PATCH", "/api/settings", { worktrees: "all" });
  const all = await relay.api("POST", "/api/sessions", {
    provider: "scripted",
    title: "Owner's by setting",
    cwd: repo,
  });
  assert.match(
    all.json.worktree?.branch ?? "",
    /^oar\/owner-s-by-setting-[a-z0-9]{6}$/,
    JSON.stringify(all.json.worktree),
  );
  const unticked = await relay.api("POST", "/api/sessions", {
    provider: "scripted",
    title: "Unticked",
    cwd: repo,
    worktree: false,
  });
  assert.equal(unticked.json.worktree, undefined);
  assert.equal(unticked.json.cwd, repo);
  const outsideRepo = await relay.api("POST", "/api/sessions", {
    provider: "scripted",
    title: "Plain folder",
    cwd: plain,
  });
  assert.equal(outsideRepo.status, 201);
  assert.equal(outsideRepo.json.worktree, undefined);
  await relay.api("PATCH", "/api/settings", { worktrees: "agents" });

  // Merging a session the lead's conversation did not start needs the owner's Allow (once).
  await say(owner.json.id, "/write owner.txt from the owner\\n\n/commit owner's change");
  const denied = await toolInTurn(
    relay,
    lead,
    { action: "merge", relay: "this", session: owner.json.id, wait_seconds: 60 },
    "deny",
  );
  assert.equal(denied.cards.length, 1);
  assert.match(JSON.stringify(denied.cards[0]), /a session this conversation did not start/);
  assert.equal(denied.result.ok, false, JSON.stringify(denied.result));
  assert.equal(g(repo, "log", "-1", "--format=%s", "main").trim() === "owner's change", false, "nothing merged");
  const allowed = await toolInTurn(relay, lead, {
    action: "merge",
    relay: "this",
    session: owner.json.id,
    wait_seconds: 60,
  });
  assert.equal(allowed.result.status, "merged", JSON.stringify(allowed.result));
  // A merge that would be refused asks nobody: no card, the refusal at once.
  const nothingNew = await toolInTurn(relay, lead, { action: "merge", relay: "this", session: owner.json.id });
  assert.deepEqual([nothingNew.cards.length, nothingNew.result.code], [0, "REMOTE_RELAY_INVALID_INPUT"]);
});
