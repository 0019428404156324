// "Needs you" in real Chromium: a session with a question or a card waiting gets its own
// state and badge (not the running dot), comes first in the list and in the "Needs you
// only" filter, the tab title counts it, and it clears once answered. Opt-in desktop
// notifications for cards and for turns the owner started — not for an agent's.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startUi, sessionLink, convTitle, SLOW, type UiKit } from "./helpers/ui-kit.ts";

let ui: UiKit;

// The page's notifications are recorded (the browser's own would need a desktop). This is a
// browser without Web Push (as over plain http on a LAN address): since "Notify me" subscribes
// to push where it can (issue 22 B), a test context that offered PushManager would have the
// page try a real subscription, which this off-the-record Chromium refuses with a console
// error of its own; notify-page.test.ts covers the push path with a local push service.
const RECORD = `delete window.PushManager;
window.__notes = [];
window.Notification = class { constructor(title, opts) { window.__notes.push({ title, body: opts && opts.body }); } close() {} static get permission() { return "granted"; } static requestPermission() { return Promise.resolve("granted"); } };`;

before(async () => {
  ui = await startUi({ initScript: RECORD });
});
after(() => ui?.close());

const notes = () => ui.page.evaluate(() => (window as any).__notes as { title: string; body: string }[]);

test("a waiting question marks its session until it is answered", async () => {
  const { page, relay } = ui;
  const busy = await relay.createSession({ title: "Busy one" });
  const asker = await relay.createSession({ title: "Asker" });
  await ui.open();
  await page.getByRole("button", { name: "Notify me" }).click();
  await page.getByRole("button", { name: "Notifications on" }).waitFor();

  const running = relay.say(busy, "/sleep 400\nhi", SLOW);
  const reply = relay.say(asker, "/ask_user Ship it? | Yes | No", SLOW);
  const link = sessionLink(page, asker);
  await page.locator(`a.sess[data-session="${asker}"][data-state="waiting"]`).waitFor();
  // Its own words and shape, not the green running dot.
  await link.locator(".badge-needs", { hasText: "needs you" }).waitFor();
  await link.getByRole("img", { name: "state: waiting for you (1)" }).waitFor();
  assert.equal(await link.locator(".dot-running_turn").count(), 0);
  // First in the list, in the "Needs you" block, and the tab title counts it.
  assert.equal(await page.locator(".session-list a.sess").first().getAttribute("data-session"), asker);
  await page.waitForFunction(() => document.title.startsWith("(1) "));
  await page.getByLabel("Needs you only").check();
  await page.locator(`a.sess[data-session="${busy}"]`).waitFor({ state: "detached" });
  assert.equal(await page.locator(".session-list a.sess").count(), 1);
  await page.getByLabel("Needs you only").uncheck();

  // The notification named the session; the page was not looking at it.
  await relay.waitFor(async () => (await notes()).some((n) => n.title === "Needs you · Asker"));

  await link.click();
  await convTitle(page, "Asker").waitFor();
  await page.locator(".conv-title-row .badge-needs", { hasText: "needs you · 1" }).waitFor();
  await page
    .getByRole("group", { name: "Question: Ship it?" })
    .getByRole("button", { name: "Yes", exact: true })
    .click();
  assert.match((await reply).text, /answer: Yes/);
  await page.locator(`a.sess[data-session="${asker}"][data-state="waiting"]`).waitFor({ state: "detached" });
  await page.waitForFunction(() => !document.title.startsWith("("));
  await running;
});

test("an approval card marks its session and is notified", async () => {
  const { page, relay } = ui;
  const orch = await relay.createSession({ title: "Planner" });
  await page.goto(`${relay.url}/#inbox`);
  await page.locator('#live[data-state="open"]').waitFor();
  const reply = relay.say(orch, '/tool {"action":"create_session","relay":"this","text":"hi"}', SLOW);
  await page.locator(`a.sess[data-session="${orch}"][data-state="waiting"]`).waitFor();
  await relay.waitFor(async () =>
    (await notes()).some((n) => n.title === "Needs you · Planner" && /create_session|session/.test(n.body)),
  );
  const card = page.getByRole("group", { name: "Approval: create_session" });
  await card.getByRole("button", { name: "Allow" }).click();
  await reply;
  await page.locator(`a.sess[data-session="${orch}"][data-state="waiting"]`).waitFor({ state: "detached" });
});

test("a finished turn you started is notified; one an agent started is not", async () => {
  const { page, relay } = ui;
  const mine = await relay.createSession({ title: "Mine" });
  const other = await relay.createSession({ title: "Started by an agent" });
  await page.goto(`${relay.url}/#settings`);
  await page.locator('#live[data-state="open"]').waitFor();
  const before = (await notes()).length;
  await relay.say(mine, "hello", SLOW);
  await relay.waitFor(async () => (await notes()).some((n) => n.title === "Finished · Mine"));

  // An agent's prompt (send from another session) runs a turn the owner did not start.
  const mcp = await relay.mcp(mine);
  const r = await mcp.call({ action: "send", relay: "this", session: other, text: "from an agent", wait_seconds: 60 });
  assert.equal(r.ok, true, JSON.stringify(r));
  assert.equal(r.status, "done", JSON.stringify(r));
  // The page has seen that turn end (the list shows it idle) and raised nothing for it.
  await relay.say(mine, "again", SLOW);
  await relay.waitFor(async () => (await notes()).filter((n) => n.title === "Finished · Mine").length === 2);
  const after = (await notes()).slice(before);
  assert.deepEqual(
    after.filter((n) => n.title.includes("Started by an agent")),
    [],
  );
  assert.deepEqual(ui.pageErrors, []);
});

test("where push cannot be set up, Notify me says so and the open page still notifies", async () => {
  // A browser with Web Push whose subscription is refused (as Chromium's is off the record,
  // or where its push service cannot be reached).
  const refused = `${RECORD.replace("delete window.PushManager;", "")}
if (typeof PushManager !== "undefined") PushManager.prototype.subscribe = async () => { throw new DOMException("Registration failed - push service error", "AbortError"); };`;
  const kit = await startUi({ initScript: refused });
  try {
    const { page, relay } = kit;
    const id = await relay.createSession({ title: "Pushless" });
    await kit.open();
    await page.getByRole("button", { name: "Notify me" }).click();
    const on = page.getByRole("button", { name: "Notifications on" });
    await on.waitFor();
    assert.match(
      (await on.getAttribute("title")) ?? "",
      /^Notifications while this page is open only: push could not be set up/,
    );
    await relay.say(id, "hello", SLOW);
    await relay.waitFor(async () =>
      (await page.evaluate(() => (window as any).__notes as { title: string }[])).some(
        (n) => n.title === "Finished · Pushless",
      ),
    );
    assert.deepEqual(kit.pageErrors, []);
  } finally {
    await kit.close();
  }
});
