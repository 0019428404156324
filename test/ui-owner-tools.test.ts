// The owner's own tools in real Chromium (issue 23 items 8 and 11): a schedule and a
// subscription made from a conversation's ⏰ and 👁 menus, every one of the relay in one
// list; usage over time as a chart; settings that name fields as the page does and confirm
// "Saved"; Providers in plain words, the working one first, Check again that answers; a
// pairing token with Copy and its expiry; a paired relay's state and page one click away.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startUi, convTitle, SLOW, type UiKit } from "./helpers/ui-kit.ts";
import { TestRelay } from "./helpers/relay-process.ts";
import { pair } from "./helpers/pairing.ts";

let ui: UiKit;
before(async () => {
  ui = await startUi({ viewport: { width: 1280, height: 800 }, permissions: ["clipboard-read", "clipboard-write"] });
});
after(() => ui?.close());

test("the owner schedules and watches from a conversation's menus; the relay's list shows both and cancels", async () => {
  const { page, relay } = ui;
  const watched = await relay.createSession({ title: "Worker" });
  const me = await relay.createSession({ title: "Overseer" });
  await ui.open(`session=${me}`);
  await convTitle(page, "Overseer").waitFor();

  await page.getByRole("button", { name: "Schedule" }).click();
  const form = page.getByRole("form", { name: "New schedule" });
  await form.getByLabel("Schedule title").fill("Morning check");
  await form.getByLabel("Prompt to send when due").fill("How did the night go?");
  // A refusal is the relay's own words, and nothing is made.
  await form.getByRole("button", { name: "Schedule" }).click();
  await form
    .getByRole("alert")
    .getByText("schedule needs at (an ISO time) or every_minutes, or both. Nothing was scheduled.")
    .waitFor();
  await form.getByLabel("Repeat every (minutes)").fill("60");
  await form.getByRole("button", { name: "Schedule" }).click();
  await page.getByRole("group", { name: "Schedule Morning check" }).getByText("set by you").waitFor();
  const [s] = (await relay.api("GET", "/api/schedules")).json.schedules;
  assert.equal(s.setBy, "owner");
  assert.equal(s.everyMinutes, 60);

  await page.getByRole("button", { name: "Watch" }).click();
  const watch = page.getByRole("form", { name: "New subscription" });
  await watch.getByLabel("Sessions to watch").selectOption(watched);
  await watch.getByRole("button", { name: "Watch" }).click();
  await page.getByRole("group", { name: "Subscription to Worker" }).waitFor();

  await page.locator("#nav-watch").click();
  const scheds = page.getByRole("list", { name: "Schedules" });
  await scheds.getByText("Morning check").waitFor();
  await scheds.getByText(/every 60 min/).waitFor();
  const subs = page.getByRole("list", { name: "Subscriptions" });
  await subs.getByText(/watches Worker/).waitFor();
  await scheds.getByRole("button", { name: "Cancel schedule Morning check" }).click();
  await scheds.getByText("No schedule is active.").waitFor();
  await subs.getByRole("button", { name: /Unsubscribe Overseer/ }).click();
  await subs.getByText("No subscription is active.").waitFor();
});

test("on a phone the Schedule and Watch menus open from More, fit the screen and make both", async () => {
  const { page, relay } = ui;
  const phone = { width: 390, height: 844 };
  const watched = await relay.createSession({ title: "Phone worker" });
  const me = await relay.createSession({ title: "Phone overseer" });
  await page.setViewportSize(phone);
  try {
    await ui.open(`session=${me}`);
    await convTitle(page, "Phone overseer").waitFor();
    const inside = async (what: string, box: { x: number; width: number } | null) =>
      assert.ok(box && box.x >= 0 && box.x + box.width <= phone.width, `${what}: ${JSON.stringify(box)}`);
    await page.getByRole("button", { name: "More" }).click();
    await page.getByRole("button", { name: "Schedule" }).click();
    const form = page.getByRole("form", { name: "New schedule" });
    await inside("schedule form", await form.boundingBox());
    await form.getByLabel("Schedule title").fill("Phone check");
    await form.getByLabel("Prompt to send when due").fill("Anything new?");
    await form.getByLabel("Repeat every (minutes)").fill("30");
    await inside("its button", await form.getByRole("button", { name: "Schedule" }).boundingBox());
    await form.getByRole("button", { name: "Schedule" }).click();
    await page.getByRole("group", { name: "Schedule Phone check" }).getByText("set by you").waitFor();

    if ((await page.getByRole("button", { name: "Watch" }).isVisible()) === false)
      await page.getByRole("button", { name: "More" }).click();
    await page.getByRole("button", { name: "Watch" }).click();
    const watch = page.getByRole("form", { name: "New subscription" });
    await inside("watch form", await watch.boundingBox());
    await watch.getByLabel("Sessions to watch").selectOption(watched);
    await watch.getByRole("button", { name: "Watch" }).click();
    await page.getByRole("group", { name: "Subscription to Phone worker" }).waitFor();
    assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= phone.width);
    const mine = (await relay.api("GET", `/api/schedules?session=${me}`)).json.schedules;
    assert.deepEqual(
      mine.map((x: any) => [x.title, x.everyMinutes, x.setBy]),
      [["Phone check", 30, "owner"]],
    );
  } finally {
    await page.setViewportSize({ width: 1280, height: 800 });
  }
});

test("usage over time shows as a chart for the relay and for one session", async () => {
  const { page, relay } = ui;
  const id = await relay.createSession({ title: "Costs" });
  await relay.say(id, "/usage 1000 200 0.5\n/reply one", SLOW);
  await relay.say(id, "/usage 3000 100 1.25\n/reply two", SLOW);
  await ui.open("settings");
  const usage = page.getByRole("region", { name: "Over the last 30 days" });
  await usage.locator("canvas").waitFor();
  await usage.getByRole("cell", { name: "$1.7500" }).waitFor();
  await ui.open(`session=${id}`);
  await page.getByRole("button", { name: "Usage" }).click();
  const mine = page.getByRole("region", { name: "Usage of this session" });
  await mine.locator("canvas").waitFor();
  await mine.getByRole("cell", { name: "4,000" }).waitFor();

  // Settings loaded on a phone draws the chart within the screen.
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    await ui.open("settings");
    await page.reload();
    await page.locator('#live[data-state="open"]').waitFor();
    await usage.locator("canvas").waitFor();
    const chart = (await usage.locator("canvas").boundingBox())!;
    assert.ok(chart.x >= 0 && chart.x + chart.width <= 390, `usage chart ${JSON.stringify(chart)}`);
    assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 390);
  } finally {
    await page.setViewportSize({ width: 1280, height: 800 });
  }
});

test("settings name their fields as the page does, put back a refused value, and say Saved", async () => {
  const { page } = ui;
  await ui.open("settings");
  const wait = page.getByLabel("Longest wait per tool call");
  await wait.fill("99");
  await wait.press("Tab");
  const said = page.locator("#set-longestWaitMinutes-said");
  await said.getByText(/^Not saved: /).waitFor();
  assert.doesNotMatch(await said.innerText(), /longestWaitMinutes/);
  assert.match(await said.innerText(), /Longest wait per tool call/);
  assert.equal(await wait.inputValue(), "10", "the stored value is shown again");
  await wait.fill("12");
  await wait.press("Tab");
  await said.getByText("Saved").waitFor();
});

test("Providers: plain words, the working one first, and Check again says what it found", async () => {
  const { page } = ui;
  await ui.open("settings");
  const list = page.locator(".provider-list");
  await list.getByRole("group", { name: "Provider Scripted" }).waitFor();
  const first = await list.locator(".provider").first().getAttribute("aria-label");
  assert.equal(first, "Provider Scripted", "the available one comes first");
  const text = await list.innerText();
  assert.doesNotMatch(text, /in Settings → Providers/);
  assert.doesNotMatch(text, /`/);
  assert.doesNotMatch(text, /\b(\w+) \1\b/i, "no doubled word");
  const scripted = list.getByRole("group", { name: "Provider Scripted" });
  await scripted.getByRole("button", { name: "Check again" }).click();
  await scripted.getByText("Checked just now: available.").waitFor();
});

test("a pairing token has Copy and says when it expires; a paired relay shows its state and its page", async () => {
  const { page, relay } = ui;
  const other = await TestRelay.start({ name: "lab" });
  try {
    await ui.open("settings");
    await page.getByRole("button", { name: "Make a pairing token" }).click();
    const token = page.locator(".pair-token").filter({ hasText: "works once" });
    await token.getByText(/until/).waitFor();
    // Shown where you are, not below the fold.
    const onScreen = async (height: number) => {
      await token.locator("code").waitFor();
      const b = (await token.locator("code").boundingBox())!;
      assert.ok(b.y >= 0 && b.y + b.height <= height, `the token at ${JSON.stringify(b)}`);
    };
    await onScreen(800);
    await token.getByRole("button", { name: "Copy pairing token" }).click();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    assert.match(copied, /^oarp_/);
    assert.equal(copied, await token.locator("code").innerText());
    // On a phone the token and its Copy button fit the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.getByRole("button", { name: "Make a pairing token" }).click();
      await token.locator("code").filter({ hasNotText: copied }).waitFor();
      await onScreen(844);
      const copy = (await token.getByRole("button", { name: "Copy pairing token" }).boundingBox())!;
      assert.ok(copy.x >= 0 && copy.x + copy.width <= 390, JSON.stringify(copy));
      assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 390);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }

    await pair(relay, other);
    await ui.open();
    const card = page.getByRole("region", { name: /Paired relays/ });
    await card.getByText("lab").waitFor();
    await card.getByText(/online|offline/).waitFor();
    await card.getByText(/^seen |not seen yet/).waitFor();
    assert.equal(await card.getByRole("link", { name: /Open its page/ }).getAttribute("href"), other.url);
  } finally {
    await other.stop();
  }
});
