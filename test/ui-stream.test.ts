// Streaming in real Chromium: a reply's chunks arrive as turn.delta events and are appended
// on screen without reading the session again (requests counted); a background task's
// console follows new lines until it is closed, and stays open when the task ends.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startUi, convTitle, SLOW, type UiKit } from "./helpers/ui-kit.ts";

let ui: UiKit;
before(async () => {
  ui = await startUi();
});
after(() => ui?.close());

test("streamed chunks are appended without re-reading the session", async () => {
  const { page, relay, requests } = ui;
  const id = await relay.createSession({ title: "Streamer" });
  await ui.open(`session=${id}`);
  await convTitle(page, "Streamer").waitFor();
  const detailReads = () => requests.filter((r) => r.method === "GET" && r.path === `/api/sessions/${id}`).length;

  // Long enough that the reply is still streaming when its text is read after chunk 10
  // (with 12 chunks a loaded machine saw the turn end first). Chunks arrive in order, so
  // "chunk 2" and "chunk 10" are on screen only once those chunks are.
  const reply = relay.say(id, "/stream 40 250", SLOW);
  const live = (text: string) => page.locator("article.msg-inflight", { hasText: text });
  await live("chunk 2").waitFor();
  const readsAtChunk2 = detailReads();
  await live("chunk 10").waitFor();
  // Eight chunks reached the screen with no read of the session in between.
  assert.equal(detailReads(), readsAtChunk2);
  const shown = await page.locator("article.msg-inflight .md").innerText();
  assert.deepEqual(
    shown.split("\n").filter(Boolean).slice(0, 10),
    Array.from({ length: 10 }, (_, i) => `chunk ${i + 1}`),
  );
  await reply;
  await page.locator("article.msg-agent:not(.msg-inflight)", { hasText: "chunk 40" }).waitFor();
  assert.ok(detailReads() - readsAtChunk2 <= 3, `reads after the stream: ${detailReads() - readsAtChunk2}`);
  assert.deepEqual(ui.pageErrors, []);
});

test("a task's console follows new lines and stays open when the task ends", async () => {
  const { page, relay } = ui;
  const dir = mkdtempSync(join(tmpdir(), "oar-ui-task-"));
  const id = await relay.createSession({ title: "Ticker", cwd: dir });
  await ui.open(`session=${id}`);
  await convTitle(page, "Ticker").waitFor();
  await relay.say(
    id,
    "/task ticker i=0; while [ ! -f stop ]; do i=$((i+1)); echo line $i; sleep 0.2; done; echo finished",
    SLOW,
  );
  await page.getByRole("button", { name: "Output" }).click();
  const out = page.getByRole("log", { name: "Output of ticker" });
  await out.getByText(/line 2\b/).waitFor();
  // Lines written after it opened appear without touching anything.
  const seen = Number(/line (\d+)\s*$/.exec(await out.innerText())![1]);
  await out.getByText(new RegExp(`line ${seen + 5}\\b`)).waitFor();
  writeFileSync(join(dir, "stop"), "");
  await out.getByText("finished").waitFor();
  await page.locator(".task-completed .task-status", { hasText: "completed" }).waitFor();
  assert.equal(await out.isVisible(), true, "the console stays open after the task ended");
  await page.getByRole("button", { name: "Close output" }).click();
  assert.equal(await out.isVisible(), false);
});
