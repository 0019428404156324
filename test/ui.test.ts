// The web UI in real Chromium against a real relay process: token handling, a session made
// in the form answering live over SSE, approval cards, the Inbox, badges, settings.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { chromium, type Browser, type Page } from "playwright-core";
import { TestRelay } from "./helpers/relay-process.ts";

let relay: TestRelay;
let browser: Browser;
let page: Page;
const apiCalls: { path: string; query: string; auth: string | undefined }[] = [];
const pageErrors: string[] = [];

// Turns that wait on the page (cards, questions) include worker start-up on a busy machine.
const SLOW = 90_000;
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

before(async () => {
  relay = await TestRelay.start();
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
  page = await browser.newPage({ viewport: { width: 1280, height: 820 } });
  page.setDefaultTimeout(45_000);
  page.on("request", (r) => {
    const u = new URL(r.url());
    if (u.pathname.startsWith("/api/"))
      apiCalls.push({ path: u.pathname, query: u.search, auth: r.headers().authorization });
  });
  page.on("pageerror", (e) => pageErrors.push(String(e)));
  page.on("console", (m) => {
    // A refused request (a 4xx the test provokes) is logged by Chromium itself; not a page bug.
    if (m.type() === "error" && !m.text().startsWith("Failed to load resource")) pageErrors.push(m.text());
  });
});

after(async () => {
  await browser?.close();
  await relay?.stop();
});

/** The open conversation's title (the sidebar's group headers may carry the same name). */
const title = (name: string) => page.getByRole("main").getByRole("heading", { name, exact: true });
const sessionLink = (id: string) => page.locator(`a.sess[data-session="${id}"]`);

test("the owner token leaves the address bar and stays in this tab", async () => {
  await page.goto(`${relay.url}/#token=${relay.token}`);
  await page.locator('#live[data-state="open"]').waitFor();
  assert.ok(!page.url().includes(relay.token), page.url());
  assert.ok(!page.url().includes("token="), page.url());
  assert.equal(await page.evaluate(() => sessionStorage.getItem("oar.ownerToken")), relay.token);
});

test("a session made in the form answers a message live", async () => {
  await page.getByRole("link", { name: "New session" }).click();
  await page.getByLabel("Provider").selectOption("scripted");
  await page.getByLabel("Title").fill("UI chat");
  await page.getByRole("button", { name: "Create session" }).click();
  await title("UI chat").waitFor();

  const list = (await relay.api("GET", "/api/sessions")).json.sessions;
  const made = list.find((s: any) => s.title === "UI chat");
  assert.equal(made.provider, "scripted");
  assert.match(page.url(), new RegExp(`#session=${made.id}$`));

  await page.getByLabel("Message", { exact: true }).fill("hello there");
  await page.getByRole("button", { name: "Send", exact: true }).click();
  // No polling in the page: the reply arrives because the SSE stream said the session changed.
  await page.locator("article.msg-agent", { hasText: "echo: hello there" }).waitFor();
  await page.locator("article.msg-user", { hasText: "hello there" }).waitFor();
  assert.equal(await page.getByLabel("Message", { exact: true }).inputValue(), "", "the box empties after sending");
});

test("an approval card is allowed from the conversation; the new session shows via agent", async () => {
  const a = await relay.createSession({ title: "Orchestrator" });
  await sessionLink(a).click();
  await title("Orchestrator").waitFor();

  const reply = relay.say(a, '/tool {"action":"create_session","relay":"this","text":"hi"}', SLOW);
  const card = page.getByRole("group", { name: "Approval: create_session" });
  await card.waitFor();
  await card.getByText("first session this conversation starts").waitFor();
  // The card says the turn waits; no empty "writing…" bubble sits above it (issue 23 item 9).
  assert.equal(await page.locator("article.msg-inflight").count(), 0);
  await card.getByRole("button", { name: "Allow" }).click();

  const r = await reply;
  const result = JSON.parse(r.text.replace(/^tool: /, ""));
  assert.equal(result.ok, true, r.text);
  await card.waitFor({ state: "detached" });
  await page
    .getByRole("note", { name: "Approval allowed" })
    .filter({ hasText: 'create_session on relay "desk"' })
    .waitFor();
  assert.deepEqual((await relay.api("GET", "/api/cards")).json.cards, []);

  // The reply's tool call reads as one relay_tool line naming the action, the relay and the session by its title.
  const made = (await relay.session(result.session)).title;
  await page.locator(".tool-call summary", { hasText: `create_session → desk session “${made}”` }).waitFor();

  // Sidebar: the new session sits in the group headed by Orchestrator, marked via agent.
  const group = page.getByRole("group", { name: "Group Orchestrator" });
  await group.locator(`a.sess[data-session="${result.session}"]`, { hasText: 'via agent · "Orchestrator"' }).waitFor();
  await group.locator(`a.sess[data-session="${a}"]`).waitFor();

  // Under its title, and its prompt carries the "↗ from" badge.
  await sessionLink(result.session).click();
  await page.locator(".conv-sub .via-agent", { hasText: 'via agent · "Orchestrator"' }).waitFor();
  await page.locator("article.msg-user .badge-from", { hasText: "↗ from desk · Orchestrator · scripted-1" }).waitFor();
});

test("a question is answered from the Inbox and the turn continues", async () => {
  const q = await relay.createSession({ title: "Painter" });
  const reply = relay.say(q, "/ask_user Pick | Red | Blue", SLOW);
  await page.getByRole("link", { name: /Inbox/ }).click();
  const question = page.getByRole("group", { name: "Question: Pick" });
  await question.waitFor();
  await question.getByRole("link", { name: "Painter" }).waitFor();
  await page.locator("#inbox-count", { hasText: "1" }).waitFor();
  await question.getByRole("button", { name: "Red", exact: true }).click();
  const r = await reply;
  assert.match(r.text, /answer: Red/);
  await question.waitFor({ state: "detached" });
  await page.waitForFunction(() => document.getElementById("inbox-count")!.textContent === "");
  assert.deepEqual((await relay.api("GET", "/api/inbox")).json.questions, []);
});

test("a free answer in the conversation's own question card", async () => {
  const q = await relay.createSession({ title: "Namer" });
  const reply = relay.say(q, "/ask_user Name it | A | B", SLOW);
  await sessionLink(q).click();
  const question = page.getByRole("group", { name: "Question: Name it" });
  await question.getByLabel("Your answer").fill("Zed");
  await question.getByRole("button", { name: "Send answer" }).click();
  assert.match((await reply).text, /answer: Zed/);
  await page.locator("article.msg-agent", { hasText: "answer: Zed" }).waitFor();
});

test("a schedule's message shows as a compact schedule line, not as the owner's", async () => {
  const id = await relay.createSession({ title: "Timer" });
  await sessionLink(id).click();
  await title("Timer").waitFor();
  const mcp = await relay.mcp(id);
  const now = Date.parse(await relay.advance(0));
  const r = await mcp.call({
    action: "schedule",
    title: "Nightly",
    at: new Date(now + 60_000).toISOString(),
    text: "run the checks",
  });
  assert.equal(r.ok, true, JSON.stringify(r));
  await relay.advance(60_000);
  const line = page.getByRole("article", { name: "Schedule" });
  await line.filter({ hasText: '"Nightly"' }).waitFor();
  assert.equal(await line.locator(".compact-icon use").getAttribute("href"), "#i-alarm-clock");
  // It leads with its news (the schedule's title and text), not the relay's header.
  assert.equal(await line.locator(".compact-text").innerText(), "Nightly: run the checks");
  // Its body folds open under the header line.
  await line.locator("summary").click();
  await line.getByText("run the checks").first().waitFor();
  await page.locator("article.msg-agent", { hasText: "echo: " }).last().waitFor();
});

test("#session=ID opens that session", async () => {
  const list = (await relay.api("GET", "/api/sessions")).json.sessions;
  const orchestrator = list.find((s: any) => s.title === "Orchestrator");
  await page.goto(`${relay.url}/#session=${orchestrator.id}`);
  await title("Orchestrator").waitFor();
  await page.locator(`a.sess.current[data-session="${orchestrator.id}"]`).waitFor();
});

test("an openUrl in a fresh tab asks for the token, refuses a wrong one, then opens the session", async () => {
  const id = (await relay.api("GET", "/api/sessions")).json.sessions.find((s: any) => s.title === "Orchestrator").id;
  const context = await browser.newContext();
  try {
    const fresh = await context.newPage();
    await fresh.goto(`${relay.url}/#session=${id}`);
    const token = fresh.getByLabel("Owner token");
    await token.fill("wrong-token");
    await token.press("Enter");
    await fresh.getByRole("alert").filter({ hasText: "The relay refused the owner token." }).waitFor();
    await fresh.getByLabel("Owner token").fill(relay.token);
    await fresh.getByRole("button", { name: "Open" }).click();
    await fresh.getByRole("main").getByRole("heading", { name: "Orchestrator", exact: true }).waitFor();
  } finally {
    await context.close();
  }
});

test("mode and the owner-only switch are set from the conversation", async () => {
  const id = (await relay.api("GET", "/api/sessions")).json.sessions.find((s: any) => s.title === "UI chat").id;
  await sessionLink(id).click();
  await title("UI chat").waitFor();
  await page.getByLabel("Relay mode").selectOption("ask");
  await relay.waitFor(async () => (await relay.session(id)).mode === "ask");
  const sw = page.getByRole("switch", { name: "Agents in this conversation may start sessions" });
  // The mode change re-renders the title bar from the live stream; a click that lands on the
  // element being replaced is lost, so click until the relay holds the wanted value (the PATCH
  // carries the absolute value, so a second click for the same state changes nothing).
  const setSwitch = (want: boolean) =>
    relay.waitFor(async () => {
      if ((await relay.session(id)).mayCreateSessions === want) return true;
      if ((await sw.isChecked()) !== want) await sw.click();
      await new Promise((r) => setTimeout(r, 250));
      return (await relay.session(id)).mayCreateSessions === want;
    });
  await setSwitch(true);
  assert.equal((await relay.session(id)).mode, "ask");
  await setSwitch(false);
});

test("text from sessions is shown as text, never as markup", async () => {
  const evil = '<img src=x onerror="window.__pwned=1">';
  const id = await relay.createSession({ title: evil });
  await sessionLink(id).click();
  await title(evil).waitFor();
  await page.getByLabel("Message", { exact: true }).fill("<b>bold</b>");
  await page.getByRole("button", { name: "Send", exact: true }).click();
  await page.locator("article.msg-agent", { hasText: "echo: <b>bold</b>" }).waitFor();
  assert.equal(await page.locator("#app img, .messages b").count(), 0);
  assert.equal(await page.evaluate(() => (window as any).__pwned), undefined);
});

test("archive from the conversation; archived sessions show with Show archived", async () => {
  const id = await relay.createSession({ title: "Old work" });
  await sessionLink(id).click();
  await title("Old work").waitFor();
  await page.getByRole("button", { name: "Archive" }).click();
  await sessionLink(id).waitFor({ state: "detached" });
  await page.locator(".conv-title-row .badge-archived").waitFor();
  assert.equal(await page.getByLabel("Message", { exact: true }).isVisible(), false);
  await page.getByLabel("Show archived").check();
  await sessionLink(id).locator(".badge-archived", { hasText: "archived" }).waitFor();
  assert.equal((await relay.session(id)).archived, true);
  await page.getByLabel("Show archived").uncheck();
});

test("settings save and persist", async () => {
  await page.getByRole("link", { name: "Settings" }).click();
  const agents = page.getByRole("switch", { name: "Agents may start and use sessions on this relay" });
  await page.waitForFunction(
    () => (document.getElementById("set-agentSessions") as HTMLInputElement | null)?.checked === true,
  );
  await agents.uncheck();
  await page
    .getByRole("status")
    .filter({ hasText: "Saved: Agents may start and use sessions on this relay." })
    .waitFor();
  assert.equal((await relay.api("GET", "/api/settings")).json.agentSessions, false);

  const wait = page.getByLabel("Longest wait per tool call");
  await wait.fill("15");
  await wait.press("Tab");
  await relay.waitFor(async () => (await relay.api("GET", "/api/settings")).json.longestWaitMinutes === 15);

  // A refused value shows the relay's reason, and the stored value comes back.
  await wait.fill("99");
  await wait.press("Tab");
  await page.getByRole("status").filter({ hasText: "2 to 60 minutes" }).waitFor();
  await page.waitForFunction(
    () => (document.getElementById("set-longestWaitMinutes") as HTMLInputElement).value === "15",
  );
  assert.equal((await relay.api("GET", "/api/settings")).json.longestWaitMinutes, 15);

  // After a reload (the token is no longer in the URL) the page still signs in and shows the stored values.
  await page.reload();
  await title("Settings").waitFor();
  await page.waitForFunction(
    () => (document.getElementById("set-longestWaitMinutes") as HTMLInputElement).value === "15",
  );
  assert.equal(await agents.isChecked(), false);
});

test("every API call carried the owner token in its header; the SSE stream a ticket, never the token", () => {
  assert.ok(apiCalls.length > 10);
  for (const c of apiCalls) {
    if (c.path === "/api/stream") {
      assert.match(c.query, /^\?ticket=/);
      assert.ok(!c.query.includes(relay.token));
    } else {
      assert.equal(c.auth, `Bearer ${relay.token}`, c.path);
      assert.ok(!c.query.includes(relay.token), c.path);
    }
  }
  assert.deepEqual(pageErrors, []);
});
