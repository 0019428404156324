// What the agent did, from the reply's stored `meta` (SHAPES.md): tool calls as compact lines
// with their status that open to details and file diffs, 🛰️ relay_tool lines, thoughts and
// plans folded, tokens and cost, images. The rows are written into the store of a stopped
// relay (as a provider adapter would have kept them), then the relay starts and the page reads them.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { TestRelay } from "./helpers/relay-process.ts";
import { startUi, convTitle, SLOW, type UiKit } from "./helpers/ui-kit.ts";

let ui: UiKit;
let relay: TestRelay;
let id = "";
let hasFilesRoute = false;
const work = mkdtempSync(join(tmpdir(), "oar-ui-act-"));
// 2×2 red PNG
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP8z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==",
  "base64",
);

before(async () => {
  relay = await TestRelay.start();
  id = await relay.createSession({ title: "Worker", cwd: work });
  const reply = await relay.say(id, "hello", SLOW);
  writeFileSync(join(work, "chart.png"), PNG);
  await relay.kill();
  const db = new Database(join(relay.dataDir, "oar.db"));
  const meta = {
    model: "scripted-1",
    status: "done",
    error: null,
    activity: [
      { kind: "thought", text: "First read the file, then change the greeting." },
      {
        kind: "plan",
        entries: [
          { content: "Read a.ts", status: "completed" },
          { content: "Change the greeting", status: "in_progress" },
        ],
      },
      {
        kind: "tool",
        id: "t1",
        title: "Read src/a.ts",
        toolKind: "read",
        status: "completed",
        locations: ["src/a.ts"],
        output: "export const greet = 'hi';",
      },
      {
        kind: "tool",
        id: "t2",
        title: "Edit src/a.ts",
        toolKind: "edit",
        status: "completed",
        locations: ["src/a.ts"],
        diffs: [
          {
            path: "src/a.ts",
            oldText: "line one\nexport const greet = 'hi';\nline three\n",
            newText: "line one\nexport const greet = 'hello';\nline three\n",
          },
          { path: "src/new.ts", oldText: null, newText: "brand new\n" },
        ],
      },
      { kind: "tool", id: "t3", title: "Run tests", toolKind: "execute", status: "failed", output: "1 failing" },
      {
        kind: "tool",
        id: "t4",
        title: "relay_tool",
        toolKind: "other",
        status: "completed",
        relay: { action: "send", relay: "desk", session: "ses_other1" },
      },
    ],
    usage: { inputTokens: 1234, outputTokens: 56, cachedTokens: 1000, costUsd: 0.0123 },
    images: [{ path: join(work, "chart.png"), mimeType: "image/png", bytes: PNG.length, size: "2x2" }],
  };
  db.prepare("UPDATE messages SET meta_json = ? WHERE id = ?").run(JSON.stringify(meta), reply.id);
  db.close();
  await relay.boot();
  const probe = await relay.api("GET", `/api/sessions/${id}/files?path=${encodeURIComponent(join(work, "chart.png"))}`);
  hasFilesRoute = probe.status === 200;
  ui = await startUi({ relayInstance: relay });
  await ui.open(`session=${id}`);
  await convTitle(ui.page, "Worker").waitFor();
});
after(() => ui?.close());

const reply = () => ui.page.locator("article.msg-agent").last();

test("tool calls are compact lines with their status that open to details", async () => {
  const list = reply().getByRole("list", { name: "What the agent did" });
  const read = list.locator("details.act-tool", { hasText: "Read src/a.ts" });
  await read.locator(".tool-status", { hasText: "done" }).waitFor();
  assert.equal(await read.getAttribute("open"), null, "closed until asked");
  assert.equal(await read.getByText("export const greet = 'hi';").isVisible(), false);
  await read.locator("summary").click();
  await read.getByText("export const greet = 'hi';").waitFor();
  const failed = list.locator("details.act-tool.tool-failed", { hasText: "Run tests" });
  await failed.locator(".tool-status", { hasText: "failed" }).waitFor();
  // relay_tool calls read as relay_tool lines naming the action, the relay and the session (seed §3).
  const relayLine = list.locator("details.act-relay");
  assert.equal(await relayLine.locator(".tool-title").innerText(), "send → desk session ses_other1");
  assert.equal(await relayLine.locator(".tool-icon use").getAttribute("href"), "#i-radio-tower");
});

test("an edit opens to the diff of each file it changed", async () => {
  const edit = reply().locator("details.act-tool", { hasText: "Edit src/a.ts" });
  await edit.locator(".tool-files", { hasText: "2 files" }).waitFor();
  await edit.locator("summary").click();
  const a = edit.getByLabel("Changes to src/a.ts");
  await a.locator(".dl-del", { hasText: "- export const greet = 'hi';" }).waitFor();
  await a.locator(".dl-add", { hasText: "+ export const greet = 'hello';" }).waitFor();
  assert.equal(await a.locator(".dl", { hasText: "line one" }).count(), 1);
  const created = edit.getByLabel("Changes to src/new.ts");
  await created.locator(".dl-add", { hasText: "+ brand new" }).waitFor();
  await edit.locator(".diff-path", { hasText: "src/new.ts" }).getByText("new file").waitFor();
});

test("thoughts and plans are folded", async () => {
  const thought = reply().locator("details.act-thought");
  assert.equal(await thought.getByText("First read the file").isVisible(), false);
  await thought.locator("summary").click();
  await thought.getByText("First read the file, then change the greeting.").waitFor();
  await reply().locator("details.act-plan summary", { hasText: "Plan · 1/2 done" }).waitFor();
});

test("tokens and cost show on the reply and summed for the session", async () => {
  await reply().locator(".msg-usage", { hasText: "1,234 in · 56 out · 1,000 cached · $0.0123" }).waitFor();
  await ui.page.locator(".conv-usage", { hasText: "Σ 1,234 in · 56 out · 1,000 cached · $0.0123" }).waitFor();
});

test("an image the agent made is shown", async (t) => {
  const img = reply().getByRole("img", { name: "Image chart.png" });
  await img.waitFor();
  if (!hasFilesRoute) return t.skip("this relay has no GET /api/sessions/:id/files yet (image-cloud adds it)");
  await ui.page.waitForFunction(() => {
    const el = document.querySelector("img.msg-image") as HTMLImageElement | null;
    return !!el && el.complete && el.naturalWidth === 2;
  });
  assert.match((await img.getAttribute("src")) ?? "", /^blob:/);
});
