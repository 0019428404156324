// The conversation in real Chromium: Markdown with code blocks, answered questions and
// stopped turns kept in history, long messages folded, a prompt from an agent labelled with
// that agent (not "You"), and refusals told in words rather than schema text.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startUi, convTitle, SLOW, type UiKit } from "./helpers/ui-kit.ts";

let ui: UiKit;
before(async () => {
  ui = await startUi();
});
after(() => ui?.close());

async function openSession(title: string) {
  const id = await ui.relay.createSession({ title });
  await ui.open(`session=${id}`);
  await convTitle(ui.page, title).waitFor();
  return id;
}

test("a reply in Markdown shows formatting and code blocks", async () => {
  const { page, relay } = ui;
  const id = await openSession("Markdown");
  await relay.say(
    id,
    [
      "/reply Some **bold** words and `inline` code:",
      "/reply ```js",
      "/reply const x = 1 < 2;",
      "/reply ```",
      "/reply - one",
      "/reply - two",
    ].join("\n"),
    SLOW,
  );
  const msg = page.locator("article.msg-agent").last();
  await msg.locator(".md strong", { hasText: "bold" }).waitFor();
  assert.equal((await msg.locator(".md pre code").innerText()).trim(), "const x = 1 < 2;");
  assert.equal(await msg.locator(".md ul li").count(), 2);
  assert.equal(await msg.locator(".md code").first().innerText(), "inline");
});

test("an answered question and stopped turns stay in the history", async () => {
  const { page, relay } = ui;
  const id = await openSession("History");
  const reply = relay.say(id, "/ask_user Which colour? | Red | Blue", SLOW);
  await page
    .getByRole("group", { name: "Question: Which colour?" })
    .getByRole("button", { name: "Blue", exact: true })
    .click();
  await reply;
  const q = page.getByRole("note", { name: "Question answered" });
  await q.filter({ hasText: "Which colour? — answered → Blue" }).waitFor();
  // It opens to what was offered.
  await q.locator("summary").click();
  await q.getByText("Options: Red · Blue").waitFor();

  // A turn stopped before the agent wrote anything leaves a marker after its prompt.
  await relay.api("POST", `/api/sessions/${id}/messages`, { text: "/hang" });
  await page.locator("article.msg-inflight").waitFor();
  await page.getByRole("button", { name: "Stop" }).click();
  await page
    .getByRole("note", { name: "Turn stopped" })
    .filter({ hasText: "Stopped before the agent replied." })
    .waitFor();
  // One stopped after writing keeps what it wrote, marked stopped.
  await relay.api("POST", `/api/sessions/${id}/messages`, { text: "/reply half an answer\n/hang" });
  await page.locator("article.msg-inflight", { hasText: "half an answer" }).waitFor();
  await page.getByRole("button", { name: "Stop" }).click();
  const stopped = page.locator("article.msg-agent:not(.msg-inflight)", { hasText: "half an answer" });
  await stopped.getByRole("note").filter({ hasText: "Stopped: the reply ended here." }).waitFor();

  // After a reload all of it is still there (it comes from the relay, not the page's memory).
  await page.reload();
  await page.getByRole("note", { name: "Question answered" }).waitFor();
  await page.getByRole("note", { name: "Turn stopped" }).waitFor();
  await stopped.getByRole("note").waitFor();
});

test("a long message is folded and opens on request", async () => {
  const { page, relay } = ui;
  const id = await openSession("Long");
  const text = Array.from({ length: 400 }, (_, i) => `line ${i}`).join("\n");
  await relay.api("POST", `/api/sessions/${id}/messages`, { text });
  const msg = page.locator("article.msg-user").last();
  const body = msg.locator(".msg-body");
  await body.and(page.locator(".folded")).waitFor();
  const folded = await msg.boundingBox();
  assert.ok(folded!.height < 600, `folded height ${folded!.height}`);
  await msg.getByRole("button", { name: /Show all \(400 lines\)/ }).click();
  assert.equal(await msg.getByRole("button", { name: "Fold" }).getAttribute("aria-expanded"), "true");
  const open = await msg.boundingBox();
  assert.ok(open!.height > 2000, `open height ${open!.height}`);
});

test("a prompt from an agent names that agent, not You", async () => {
  const { page, relay } = ui;
  const target = await openSession("Receiver");
  const sender = await relay.createSession({ title: "Sender" });
  const mcp = await relay.mcp(sender);
  const r = await mcp.call({ action: "send", relay: "this", session: target, text: "please look", wait_seconds: 60 });
  assert.equal(r.ok, true, JSON.stringify(r));
  const prompt = page.locator("article.msg-user.msg-from", { hasText: "please look" });
  await prompt.locator(".msg-who", { hasText: "Agent · Sender" }).waitFor();
  await prompt.locator(".badge-from", { hasText: "↗ from desk · Sender · scripted-1" }).waitFor();
  assert.equal(await prompt.locator(".msg-who").innerText(), "Agent · Sender");
});

test("a refusal reads as words, not schema text", async () => {
  const { page } = ui;
  await openSession("Refusals");
  await page.getByLabel("Message", { exact: true }).fill("x".repeat(200_001));
  await page.getByRole("button", { name: "Send", exact: true }).click();
  const alert = page.locator("#toast");
  await alert.getByText("Text is longer than 200000 characters. Nothing was sent.").waitFor();
  assert.doesNotMatch(await alert.innerText(), /Too big|expected string/);
});
