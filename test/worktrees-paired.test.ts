// Worktrees across paired relays (contract §10.1): an agent on one relay starts a session on
// the paired relay on a branch of a repository there — it works in a worktree on that relay —;
// claims and merges are kept by the relay the repository is on, so asking for them on a paired
// relay is refused with UNSUPPORTED. Two real relays on loopback, the real MCP client.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { pairedRelays, type PairedRelays } from "./helpers/pairing.ts";
import { toolInTurn } from "./helpers/watch.ts";
import { cleanTemps, g, isolateGit, makeRepo } from "./helpers/git-repos.ts";

isolateGit();
let p: PairedRelays;
before(async () => {
  p = await pairedRelays({ conv: "Lead on desk", target: "Someone on bbox" });
});
after(async () => {
  await p?.stop();
  cleanTemps();
});

test("create_session on a paired relay with branch works in a worktree there; claim and merge there are UNSUPPORTED", async () => {
  const repo = makeRepo({ "README.md": "remote\n" });
  const made = await toolInTurn(p.a, p.conv, {
    action: "create_session",
    relay: "bbox",
    provider: "scripted",
    cwd: repo,
    branch: "remote/work",
    title: "Remote worker",
    text: "/write notes.md from afar\\n\n/commit notes",
    wait_seconds: 60,
  });
  const r = made.result;
  assert.equal(r.ok, true, JSON.stringify(r));
  assert.equal(r.relay, "bbox");
  assert.equal(r.worktree.branch, "remote/work");
  assert.equal(r.worktree.repo, repo);
  assert.ok(r.worktree.path.startsWith(join(p.b.dataDir, "worktrees")), r.worktree.path);
  assert.ok(existsSync(join(r.worktree.path, "notes.md")));
  assert.equal(existsSync(join(repo, "notes.md")), false, "the repository's main folder is untouched");
  assert.equal(g(repo, "log", "-1", "--format=%s", "remote/work").trim(), "notes");

  const claim = await p.agent.call({ action: "claim", relay: "bbox", paths: ["src/**"] });
  assert.equal(claim.code, "REMOTE_RELAY_UNSUPPORTED");
  const merge = await p.agent.call({ action: "merge", relay: "bbox", session: r.session });
  assert.equal(merge.code, "REMOTE_RELAY_UNSUPPORTED");
  const list = await p.agent.call({ action: "list_claims", relay: "bbox" });
  assert.equal(list.code, "REMOTE_RELAY_UNSUPPORTED");
});
