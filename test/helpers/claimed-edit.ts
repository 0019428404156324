// A claim held against a real CLI's edit (contract §10.1), the steps the Claude and Copilot
// tests share: a holder claims `src/**` of a fresh repository, the CLI's session (ask mode, on
// its own branch) is told to write `src/c.ts`, which must not be written, with no card and
// the claim's words on its edit tool call; then a file nobody claims becomes the owner's card
// as usual and is written once allowed.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { TestRelay } from "./relay-process.ts";
import { TURN_MS, say } from "./agents-e2e.ts";
import { makeRepo } from "./git-repos.ts";

/** Runs both halves; answers the refused turn's reply (its words differ per CLI). */
export async function claimHoldsAgainst(
  relay: TestRelay,
  o: { provider: string; title: string; branch: string; free: string; content: string },
): Promise<{ reply: any; write: any }> {
  const repo = makeRepo({ "README.md": "hello\n", "src/a.ts": "export const a = 1;\n" });
  const holder = await relay.createSession({ title: "Holder", cwd: repo });
  const claim = await (await relay.mcp(holder)).call({ action: "claim", paths: ["src/**"], note: "moving src" });
  assert.equal(claim.ok, true, JSON.stringify(claim));
  const made = await relay.api("POST", "/api/sessions", {
    provider: o.provider,
    title: o.title,
    cwd: repo,
    branch: o.branch,
    mode: "ask",
  });
  assert.equal(made.status, 201, JSON.stringify(made.json));
  const target = join(made.json.worktree.path, "src/c.ts");

  const reply = await say(relay, made.json.id, `Write the file. [[write ${target}]]`);
  assert.equal(existsSync(target), false, "nothing was written");
  assert.equal(
    (await relay.api("GET", `/api/cards?session=${made.json.id}`)).json.cards.length,
    0,
    "no card: refused before anyone is asked",
  );
  const write = reply.meta.activity.find((a: any) => a.kind === "tool" && a.toolKind === "edit");
  assert.ok(write, JSON.stringify(reply.meta.activity));
  const words = JSON.stringify(write);
  assert.ok(words.includes(`src/c.ts is claimed by session \\"Holder\\" (${holder})`), words);

  // A path nobody claims: the same request becomes the owner's card as usual.
  const free = join(made.json.worktree.path, o.free);
  const m = await relay.api("POST", `/api/sessions/${made.json.id}/messages`, {
    text: `Write the file. [[write ${free}]]`,
  });
  const card = await relay.waitFor(
    async () => (await relay.api("GET", `/api/cards?session=${made.json.id}`)).json.cards[0],
    TURN_MS,
  );
  assert.equal((await relay.api("POST", `/api/cards/${card.id}`, { decision: "allow" })).json.status, "allowed");
  await relay.waitFor(async () => existsSync(free) && readFileSync(free, "utf8") === o.content, TURN_MS);
  assert.ok(m.json.message_id);
  return { reply, write };
}
