// Readable changes and replies in real Chromium (issue 23 items 3 and 9): a diff shows hunks
// with line numbers and +/− counts, a session's Changes panel lists the files its tool calls
// changed, code blocks are coloured and copied, relay_tool lines name sessions by title and
// open to fields, event lines lead with their news, a waiting card has no empty "writing…"
// bubble above it, and a long reply shows whole. The agent is the scripted one, by its own
// lines (/write reports an edit with its diff, as real agents do).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startUi, convTitle, SLOW, type UiKit } from "./helpers/ui-kit.ts";

const PHONE = { width: 390, height: 844 };
let ui: UiKit;
let cwd: string;
before(async () => {
  ui = await startUi({ viewport: { width: 1280, height: 800 }, permissions: ["clipboard-read", "clipboard-write"] });
  cwd = mkdtempSync(join(tmpdir(), "oar-ui-diff-"));
});
after(() => ui?.close());

const eighty = Array.from({ length: 80 }, (_, i) => `line ${i + 1} of the file`);

test("an 80-line file with one change shows as one hunk of at most 12 lines, with line numbers and counts", async () => {
  const { page, relay } = ui;
  writeFileSync(join(cwd, "big.txt"), `${eighty.join("\n")}\n`);
  const changed = eighty.map((l, i) => (i === 39 ? "line 40 CHANGED" : l));
  const id = await relay.createSession({ title: "One change", cwd });
  await relay.say(id, `/write big.txt ${changed.join("\\n")}\\n\n/reply done`, SLOW);
  try {
    for (const viewport of [{ width: 1280, height: 800 }, PHONE]) {
      await page.setViewportSize(viewport);
      await ui.open(`session=${id}`);
      // (The same page at another size keeps what was open: open it only when closed.)
      const tool = page.locator("details.act-tool", { hasText: "Write big.txt" });
      await tool.locator("summary").waitFor();
      if ((await tool.getAttribute("open")) === null) await tool.locator("summary").click();
      // Diffs name their files by absolute path (ACP), as real agents report them.
      const diff = tool.getByLabel(`Changes to ${join(cwd, "big.txt")}`);
      await diff.locator(".dl-add", { hasText: "+ line 40 CHANGED" }).waitFor();
      const rows = await diff.locator(".dl").count();
      assert.ok(rows <= 12, `${rows} rows`);
      assert.equal(await diff.locator(".dl-hunk").count(), 1, "one hunk");
      assert.deepEqual(await diff.locator(".dl-del .ln").allInnerTexts(), ["40", ""]);
      assert.deepEqual(await diff.locator(".dl-add .ln").allInnerTexts(), ["", "40"]);
      await tool.locator(".diff-counts", { hasText: "+1 −1" }).waitFor();
      // On the phone nothing is cut: the longest line fits the box.
      const fits = await diff.evaluate((el) => el.scrollWidth <= el.clientWidth + 1);
      assert.ok(fits, "no line is cut or scrolls sideways");
      assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= viewport.width);
    }
  } finally {
    await page.setViewportSize({ width: 1280, height: 800 });
  }
});

test("the Changes panel lists every file the session's tool calls changed, each once with its counts", async () => {
  const { page, relay } = ui;
  writeFileSync(join(cwd, "a.ts"), "export const a = 1;\n");
  const id = await relay.createSession({ title: "Two turns of edits", cwd });
  await relay.say(id, "/write a.ts export const a = 2;\\n\n/write docs/new.md # New\\n\\nhello\\n", SLOW);
  await relay.say(id, "/write a.ts export const a = 3;\\nexport const b = 4;\\n", SLOW);
  await ui.open(`session=${id}`);
  await convTitle(page, "Two turns of edits").waitFor();
  await page.getByRole("button", { name: "Changes" }).click();
  const panel = page.getByRole("region", { name: "Changes" });
  await panel.getByText("Changes · 2 files").waitFor();
  const a = panel.locator("details.change-file", { hasText: "a.ts" });
  await a.locator(".diff-counts", { hasText: "+2 −1" }).waitFor();
  await a.getByText("2 edits").waitFor();
  await panel.locator("details.change-file", { hasText: "docs/new.md" }).getByText("new file").waitFor();
  await a.locator("summary").click();
  await a.locator(".dl-del", { hasText: "- export const a = 1;" }).waitFor();
  await a.locator(".dl-add", { hasText: "+ export const b = 4;" }).waitFor();

  // Usable on the phone: the panel opens from the conversation and nothing is cut or wider
  // than the screen.
  await page.setViewportSize(PHONE);
  try {
    await ui.open(`session=${id}`);
    await convTitle(page, "Two turns of edits").waitFor();
    const changes = page.getByRole("button", { name: "Changes" });
    if ((await changes.isVisible()) === false) await page.getByRole("button", { name: "More" }).click();
    // (The same page at another size keeps the panel open: open it only when closed.)
    if ((await changes.getAttribute("aria-pressed")) !== "true") await changes.click();
    await panel.getByText("Changes · 2 files").waitFor();
    const file = panel.locator("details.change-file", { hasText: "a.ts" });
    if ((await file.getAttribute("open")) === null) await file.locator("summary").click();
    const add = file.locator(".dl-add", { hasText: "+ export const b = 4;" });
    await add.waitFor();
    const box = (await add.boundingBox())!;
    assert.ok(box.x >= 0 && box.x + box.width <= PHONE.width, JSON.stringify(box));
    assert.ok(await file.evaluate((el) => el.scrollWidth <= el.clientWidth + 1), "no line is cut");
    assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= PHONE.width);
  } finally {
    await page.setViewportSize({ width: 1280, height: 800 });
  }
});

test("code blocks are coloured and copied", async () => {
  const { page, relay } = ui;
  const id = await relay.createSession({ title: "Code" });
  await relay.say(id, "/reply ```ts\n/reply const answer: number = 42;\n/reply ```", SLOW);
  await ui.open(`session=${id}`);
  const block = page.locator(".code-block").first();
  await block.locator(".hljs-keyword", { hasText: "const" }).waitFor();
  await block.getByRole("button", { name: "Copy code" }).click();
  await block.getByText("Copied").waitFor();
  assert.equal((await page.evaluate(() => navigator.clipboard.readText())).trim(), "const answer: number = 42;");
  // On a phone the block and its Copy button are within the screen.
  await page.setViewportSize(PHONE);
  try {
    const copy = (await block.getByRole("button", { name: /Copy code|Copied/ }).boundingBox())!;
    assert.ok(copy.x >= 0 && copy.x + copy.width <= PHONE.width, JSON.stringify(copy));
    const box = (await block.boundingBox())!;
    assert.ok(box.x >= 0 && box.x + box.width <= PHONE.width, JSON.stringify(box));
  } finally {
    await page.setViewportSize({ width: 1280, height: 800 });
  }
});

test("relay_tool lines name sessions by title and open to fields; event lines lead with their news", async () => {
  const { page, relay } = ui;
  const target = await relay.createSession({ title: "Build bot" });
  const caller = await relay.createSession({ title: "Lead" });
  await relay.say(
    caller,
    `/tool {"action":"send","relay":"this","session":"${target}","text":"run it","wait_seconds":60}`,
    SLOW,
  );
  await relay.api("POST", "/api/subscriptions", { watcher: caller, sessions: [target], events: ["turn_end"] });
  await relay.say(target, "again", SLOW);
  await relay.advance(31_000);
  await relay.waitFor(async () => (await relay.session(caller)).messages.some((m: any) => m.role === "event"), SLOW);
  await ui.open(`session=${caller}`);
  const line = page.locator("details.tool-call", { hasText: "send" }).first();
  await line.locator(".tool-title", { hasText: "“Build bot”" }).waitFor();
  assert.doesNotMatch(await line.locator(".tool-title").innerText(), /ses_/);
  await line.locator("summary").click();
  await line.locator(".tool-fields dt", { hasText: "status" }).waitFor();
  assert.equal(await line.locator("pre").count(), 0, "no raw JSON");
  // On a phone the open line's fields wrap within the screen.
  await page.setViewportSize(PHONE);
  try {
    const box = (await line.boundingBox())!;
    assert.ok(box.x >= 0 && box.x + box.width <= PHONE.width, JSON.stringify(box));
    assert.ok(await line.evaluate((el) => el.scrollWidth <= el.clientWidth + 1), "nothing in it is cut");
  } finally {
    await page.setViewportSize({ width: 1280, height: 800 });
  }
  const event = page.locator(".msg-event").last();
  const text = await event.locator(".compact-text").innerText();
  assert.doesNotMatch(text, /automated message from OAR/);
  assert.match(text, /Build bot/);
});

test("a question or an approval card has no empty writing bubble above it; a long reply shows whole", async () => {
  const { page, relay } = ui;
  const id = await relay.createSession({ title: "Asks" });
  const asked = relay.say(id, "/ask_user Go on? | Yes | No", SLOW);
  await ui.open(`session=${id}`);
  await page.getByRole("group", { name: "Question: Go on?" }).waitFor();
  assert.equal(await page.locator("article.msg-inflight").count(), 0);
  await page.getByRole("group", { name: "Question: Go on?" }).getByRole("button", { name: "Yes", exact: true }).click();
  await asked;
  // An approval card, on a phone too.
  for (const viewport of [{ width: 1280, height: 800 }, PHONE]) {
    await page.setViewportSize(viewport);
    const held = relay.say(id, '/tool {"action":"create_session","relay":"this","text":"hi"}', SLOW);
    const card = page.getByRole("group", { name: "Approval: create_session" });
    await card.waitFor();
    assert.equal(await page.locator("article.msg-inflight").count(), 0);
    await card.getByRole("button", { name: "Deny" }).click();
    await held;
    // The decided card leaves the page before the next one is looked for (else, on a busy
    // machine, the next round could find this one still drawn beside the next turn's bubble).
    await card.waitFor({ state: "detached" });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  const lines = Array.from({ length: 120 }, (_, i) => `/reply point ${i + 1}`).join("\n");
  await relay.say(id, `${lines}\n/reply In conclusion: ship it.`, SLOW);
  const reply = page.locator("article.msg-agent", { hasText: "In conclusion: ship it." });
  await reply.waitFor();
  assert.equal(await reply.locator(".folded").count(), 0);
  assert.ok(
    (await reply.getByText("In conclusion: ship it.").isVisible()) ||
      (await reply.getByText("In conclusion: ship it.").count()) === 1,
  );
});
