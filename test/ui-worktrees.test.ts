// The page's worktree pieces in real Chromium (contract §10.1): a worktree session shows its
// branch, ahead/behind and the files it changed with their hunks; two sessions changing one
// file are both marked; the Merge button merges through the queue; after a conflict "Ask the
// agent to resolve" sends the session a prompt naming the files and the target branch.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startUi, convTitle, SLOW, type UiKit } from "./helpers/ui-kit.ts";
import { cleanTemps, g, isolateGit, makeRepo } from "./helpers/git-repos.ts";

isolateGit();
let ui: UiKit;
let repo: string;
before(async () => {
  ui = await startUi({ viewport: { width: 1280, height: 800 } });
  repo = makeRepo({ "README.md": "hello\n", "src/a.ts": "export const a = 1;\n" });
});
after(async () => {
  await ui?.close();
  cleanTemps();
});

const worktreeSession = async (title: string, branch: string) => {
  const r = await ui.relay.api("POST", "/api/sessions", { provider: "scripted", title, cwd: repo, branch });
  assert.equal(r.status, 201, JSON.stringify(r.json));
  return r.json.id as string;
};

test("a worktree session shows its branch, what it changed with hunks, overlap marks, and merges from the page", async () => {
  const { page, relay } = ui;
  const a = await worktreeSession("Left side", "feature/left");
  const b = await worktreeSession("Right side", "feature/right");
  await relay.say(a, "/write src/a.ts export const a = 2;\\n\n/commit left change", SLOW);
  await relay.say(b, "/write src/a.ts export const a = 3;\\n\n/commit right change", SLOW);
  await relay.waitFor(async () => (await relay.session(a)).overlaps?.length === 1, SLOW);

  await ui.open(`session=${a}`);
  await convTitle(page, "Left side").waitFor();
  await page.getByText("⎇ feature/left").waitFor();
  await page.getByText("overlap · 1").waitFor();
  await page.getByRole("button", { name: "Changes" }).click();
  const section = page.getByRole("region", { name: "Worktree" });
  await section.getByText("1 commit ahead, 0 behind main").waitFor();
  await section.getByRole("note").filter({ hasText: "Overlap with Right side: src/a.ts" }).waitFor();
  const file = section.locator("details.change-file", { hasText: "src/a.ts" });
  await file.locator("summary").click();
  await file.locator(".dl-del", { hasText: "- export const a = 1;" }).waitFor();
  await file.locator(".dl-add", { hasText: "+ export const a = 2;" }).waitFor();

  await section.getByRole("button", { name: "Merge" }).click();
  await section
    .getByText(/merged into main as [0-9a-f]{10} \(fast-forward\)/)
    .first()
    .waitFor({ timeout: SLOW });
  assert.equal(g(repo, "log", "-1", "--format=%s", "main").trim(), "left change");

  // The other side now conflicts: nothing changes, and the agent can be asked to resolve it.
  await ui.open(`session=${b}`);
  await convTitle(page, "Right side").waitFor();
  await page.getByRole("button", { name: "Changes" }).click();
  const other = page.getByRole("region", { name: "Worktree" });
  await other.getByRole("button", { name: "Merge" }).click();
  await other.getByText("conflict with main in src/a.ts; nothing changed").first().waitFor({ timeout: SLOW });
  assert.equal(g(repo, "log", "-1", "--format=%s", "main").trim(), "left change");
  await other.getByRole("button", { name: "Ask the agent to resolve" }).click();
  const asked = await relay.waitFor(
    async () =>
      (await relay.session(b)).messages.find((m: any) => m.role === "user" && /conflicts in src\/a\.ts/.test(m.text)),
    SLOW,
  );
  assert.match(
    asked.text,
    /^Merging your branch feature\/right into main conflicts in src\/a\.ts\. Merge main into your branch/,
  );
});
