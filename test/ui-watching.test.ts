// Watching, schedules and groups in real Chromium: the title bar's subscription labels with
// Unsubscribe and ⏰ schedules with Cancel, the `watched` badge, and groups that fold,
// rename, dissolve and reorder, with `group · empty`.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { toolInTurn } from "./helpers/watch.ts";
import { startUi, sessionLink, convTitle, type UiKit } from "./helpers/ui-kit.ts";

let ui: UiKit;
before(async () => {
  ui = await startUi();
});
after(() => ui?.close());

test("a subscription shows as a label with Unsubscribe; the watched session has its badge", async () => {
  const { page, relay } = ui;
  const watcher = await relay.createSession({ title: "Overseer" });
  const watched = await relay.createSession({ title: "Builder" });
  const { result } = await toolInTurn(relay, watcher, {
    action: "subscribe",
    sessions: [watched],
    events: ["error", "question_asked"],
  });
  assert.equal(result.ok, true, JSON.stringify(result));
  await ui.open(`session=${watcher}`);
  await convTitle(page, "Overseer").waitFor();
  await page.locator(".conv-title-row .badge-watching", { hasText: "watching 1 session" }).waitFor();
  const label = page.getByRole("group", { name: "Subscription to Builder" });
  await label.getByText("error, question_asked").waitFor();
  await sessionLink(page, watched).locator(".badge-watched", { hasText: "watched" }).waitFor();

  await label.getByRole("button", { name: "Unsubscribe from Builder" }).click();
  await label.waitFor({ state: "detached" });
  await sessionLink(page, watched).locator(".badge-watched").waitFor({ state: "detached" });
  const subs = (await relay.api("GET", `/api/subscriptions?watcher=${watcher}`)).json.subscriptions;
  assert.equal(subs[0].active, false);
  assert.equal(subs[0].endReason, "unsubscribed");
});

test("a schedule shows in the ⏰ list with Cancel", async () => {
  const { page, relay } = ui;
  const id = await relay.createSession({ title: "Nightly" });
  const mcp = await relay.mcp(id);
  const now = Date.parse(await relay.advance(0));
  const r = await mcp.call({
    action: "schedule",
    title: "Review",
    at: new Date(now + 3_600_000).toISOString(),
    every_minutes: 1440,
    text: "review",
  });
  assert.equal(r.ok, true, JSON.stringify(r));
  await ui.open(`session=${id}`);
  const chip = page.getByRole("group", { name: "Schedule Review" });
  await chip.getByText(/every 1440 min · next/).waitFor();
  await chip.getByRole("button", { name: "Cancel schedule Review" }).click();
  await chip.waitFor({ state: "detached" });
  const list = (await relay.api("GET", `/api/schedules?session=${id}`)).json.schedules;
  assert.equal(list[0].endReason, "unscheduled");
});

test("groups fold, rename, reorder, dissolve, and an empty one says so", async () => {
  const { page, relay } = ui;
  const g1 = (await relay.api("POST", "/api/groups", { name: "Alpha" })).json.id;
  await relay.api("POST", "/api/groups", { name: "Beta" });
  const s1 = await relay.createSession({ title: "In alpha" });
  await relay.api("POST", `/api/groups/${g1}/sessions`, { session: s1 });
  await ui.open();
  const alpha = page.getByRole("group", { name: "Group Alpha" });
  const beta = page.getByRole("group", { name: "Group Beta" });
  await beta.locator(".group-empty", { hasText: "· empty" }).waitFor();
  await alpha.locator(`a.sess[data-session="${s1}"]`).waitFor();

  // ▸ folds the group and opens it again.
  await alpha.getByRole("button", { name: "Fold group Alpha" }).click();
  await alpha.locator(`a.sess[data-session="${s1}"]`).waitFor({ state: "detached" });
  await alpha.getByRole("button", { name: "Open group Alpha" }).click();
  await alpha.locator(`a.sess[data-session="${s1}"]`).waitFor();

  // Reorder: Beta moves above Alpha, and stays there after a reload.
  const order = () => page.locator(".sess-group .group-title").allInnerTexts();
  const before = await order();
  const first = before.indexOf("Alpha") < before.indexOf("Beta") ? "Alpha" : "Beta";
  const second = first === "Alpha" ? "Beta" : "Alpha";
  await page
    .getByRole("group", { name: `Group ${second}` })
    .locator("summary")
    .click();
  await page
    .getByRole("group", { name: `Group ${second}` })
    .getByRole("button", { name: "Move up" })
    .click();
  await page.waitForFunction(
    ([a, b]) => {
      const t = [...document.querySelectorAll(".sess-group .group-title")].map((x) => x.textContent);
      return t.indexOf(a) < t.indexOf(b);
    },
    [second, first],
  );
  await page.reload();
  await page.locator('#live[data-state="open"]').waitFor();
  await page.getByRole("group", { name: "Group Alpha" }).waitFor();
  const after = await order();
  assert.ok(after.indexOf(second) < after.indexOf(first), after.join(","));

  // Rename and dissolve through the group's menu.
  page.once("dialog", (d) => d.accept("Gamma"));
  await page.getByRole("group", { name: "Group Alpha" }).locator("summary").click();
  await page.getByRole("group", { name: "Group Alpha" }).getByRole("button", { name: "Rename" }).click();
  await page.getByRole("group", { name: "Group Gamma" }).waitFor();
  assert.equal((await relay.api("GET", `/api/groups/${g1}`)).json.name, "Gamma");
  page.once("dialog", (d) => d.accept());
  await page.getByRole("group", { name: "Group Gamma" }).locator("summary").click();
  await page.getByRole("group", { name: "Group Gamma" }).getByRole("button", { name: "Dissolve" }).click();
  await page.getByRole("group", { name: "Group Gamma" }).waitFor({ state: "detached" });
  // Its session stays, ungrouped.
  await page.locator(`.session-list > ul a.sess[data-session="${s1}"]`).waitFor();
  assert.deepEqual(ui.pageErrors, []);
});
