// Settings in real Chromium: Providers (available or why not, keys set and removed but
// never shown, the Claude API cap and spend), Usage, the New session form saying which
// providers are available, and General still saving.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import type { APIResponse, Route } from "playwright-core";
import { startUi, type UiKit } from "./helpers/ui-kit.ts";
import { TestRelay } from "./helpers/relay-process.ts";
import { pair } from "./helpers/pairing.ts";
import { FakeOpenAI } from "./helpers/fake-openai.ts";

// DeepSeek's endpoint for the tests that set its key: a probe there finds it available (the
// real one is not reachable from a test, which would make it "not available" once probed).
const DS_KEY = "sk-test-secret-123";
let fake: FakeOpenAI;
let ui: UiKit;
before(async () => {
  fake = await FakeOpenAI.start({ apiKey: DS_KEY, models: ["deepseek-v4"] });
  ui = await startUi();
  await ui.open("settings");
  await ui.page.getByRole("main").getByRole("heading", { name: "Settings", exact: true }).waitFor();
});
after(async () => {
  await ui?.close();
  await fake?.close();
});

/** Removes DeepSeek's key on the page, and puts its endpoint back, for the tests after. */
async function removeKey(): Promise<void> {
  const ds = provider("DeepSeek");
  await ds.getByRole("button", { name: "Remove" }).click();
  await ds.locator(".prov-status.no").waitFor();
  assert.equal((await ui.relay.api("GET", "/api/settings")).json.deepseekApiKey, null);
  const reset = await ui.relay.api("PATCH", "/api/settings", { deepseekBaseUrl: "https://api.deepseek.com" });
  assert.equal(reset.status, 200);
}

const provider = (name: string) => ui.page.getByRole("group", { name: `Provider ${name}`, exact: true });

test("Providers say which are available and why not", async () => {
  await provider("Scripted").getByText("Available").waitFor();
  const ds = provider("DeepSeek");
  await ds.getByText("Not available").waitFor();
  // On Settings → Providers it says "below", not the page it is on (issue 23 item 8).
  await ds.getByText(/add an API key below/).waitFor();
});

test("Check again asks the relay to probe the provider again", async (t) => {
  const has = (await ui.relay.api("GET", "/api/providers")).status === 200;
  if (!has) return t.skip("this relay has no GET /api/providers");
  const checks: string[] = [];
  const onRequest = (r: any) => r.method() === "POST" && checks.push(new URL(r.url()).pathname);
  ui.page.on("request", onRequest);
  const row = provider("Scripted");
  await row.getByRole("button", { name: "Check again" }).click();
  await ui.relay.waitFor(() => checks.includes("/api/providers/scripted/check"));
  // The row is drawn again from the answer, its button usable again.
  await provider("Scripted").getByRole("button", { name: "Check again" }).and(ui.page.locator(":enabled")).waitFor();
  await provider("Scripted").locator(".prov-status.ok").waitFor();
  ui.page.off("request", onRequest);
});

test("a key is set without being shown, makes its provider available, and can be removed", async () => {
  const { page, relay } = ui;
  assert.equal((await relay.api("PATCH", "/api/settings", { deepseekBaseUrl: fake.baseUrl })).status, 200);
  const ds = provider("DeepSeek");
  const key = ds.getByLabel("DeepSeek API key");
  assert.equal(await key.getAttribute("type"), "password");
  await key.fill(DS_KEY);
  await key.press("Enter");
  // "✓ Available" itself: getByText("Available") also matches "Not available", and the
  // field would be read before the save was drawn.
  await ds.locator(".prov-status.ok").waitFor();
  assert.equal((await relay.api("GET", "/api/settings")).json.deepseekApiKey, "****");
  // The field does not hold the key afterwards; it says one is set.
  assert.equal(await ds.getByLabel("DeepSeek API key").inputValue(), "");
  assert.equal(await ds.getByLabel("DeepSeek API key").getAttribute("placeholder"), "**** (set)");
  assert.equal(await page.content().then((html) => html.includes(DS_KEY)), false);

  await removeKey();
});

test("a settings answer asked before a key was saved and arriving after it does not draw the key as not set", async () => {
  const { page, relay } = ui;
  // Every GET /api/settings is held (answered as the relay answered it when asked), and the
  // Providers' GET after the save waits until the older settings answer has reached the page.
  const held: { route: Route; response: APIResponse }[] = [];
  let holding = true;
  await page.route("**/api/settings", async (route) => {
    if (route.request().method() !== "GET" || !holding) return route.fallback();
    held.push({ route, response: await route.fetch() });
  });
  let letProviders!: () => void;
  const providersGate = new Promise<void>((r) => (letProviders = r));
  let providersAsked = false;
  await page.route("**/api/providers", async (route) => {
    providersAsked = true;
    const response = await route.fetch();
    await providersGate;
    await route.fulfill({ response });
  });
  try {
    // Another client sets DeepSeek's endpoint: the page asks GET /api/settings (held: no key yet).
    assert.equal((await relay.api("PATCH", "/api/settings", { deepseekBaseUrl: fake.baseUrl })).status, 200);
    await relay.waitFor(() => held.length >= 1);
    const ds = provider("DeepSeek");
    const key = ds.getByLabel("DeepSeek API key");
    await key.fill(DS_KEY);
    await key.press("Enter");
    await relay.waitFor(() => providersAsked);
    // The older answer arrives after the save's; then the Providers' answer draws the rows.
    const finished = page.waitForEvent("requestfinished", (r) => r === held[0].route.request());
    await held[0].route.fulfill({ response: held[0].response });
    await finished;
    await page.evaluate(() => new Promise((r) => setTimeout(r, 0)));
    letProviders();
    await ds.locator(".prov-status.ok").waitFor();
    assert.equal(await ds.getByLabel("DeepSeek API key").getAttribute("placeholder"), "**** (set)");
    await ds.getByRole("button", { name: "Remove" }).waitFor();
  } finally {
    holding = false;
    letProviders();
    for (const h of held.slice(1)) await h.route.fulfill({ response: h.response }).catch(() => {});
    await page.unroute("**/api/settings");
    await page.unroute("**/api/providers");
  }
  await removeKey();
});

test("the Claude API cap is set and the month's spend shown", async () => {
  const { relay } = ui;
  const c = provider("Claude API");
  await c.getByText("Spent this month: $0.00").waitFor();
  await c.getByLabel("Claude API monthly cap (USD)").fill("50");
  await c.getByLabel("Claude API monthly cap (USD)").press("Enter");
  await c.getByText("Spent this month: $0.00 of $50").waitFor();
  assert.equal((await relay.api("GET", "/api/settings")).json.claudeApiMonthlyCapUsd, 50);
  await c.getByRole("meter", { name: "Claude API spend this month" }).waitFor();
});

test("Usage lists the providers set up", async () => {
  const usage = ui.page.getByRole("region", { name: "Usage" });
  await usage.getByRole("group", { name: "Usage of Scripted" }).waitFor();
  assert.equal(await usage.getByRole("group", { name: "Usage of DeepSeek" }).count(), 0);
});

test("New session says which providers are not available", async () => {
  const { page } = ui;
  await page.getByRole("link", { name: "New session" }).click();
  const select = page.getByLabel("Provider");
  await page
    .locator("#new-provider option[value=deepseek]", { hasText: "DeepSeek — not available" })
    .waitFor({ state: "attached" });
  await select.selectOption("deepseek");
  await page.locator("#new-provider-why", { hasText: /Not available: .*API key/ }).waitFor();
  await select.selectOption("scripted");
  assert.equal(await page.locator("#new-provider-why").innerText(), "");
  assert.deepEqual(ui.pageErrors, []);
});

test("Unpairing a relay that does not answer says it will be told when it answers again", async () => {
  const { page, relay } = ui;
  const other = await TestRelay.start({ name: "gonebox" });
  try {
    await pair(relay, other);
    await other.kill();
    // The list is read when Settings opens.
    await ui.open("new");
    await ui.open("settings");
    const row = page.getByRole("listitem").filter({ hasText: "gonebox" });
    page.once("dialog", (d) => void d.accept());
    await row.getByRole("button", { name: "Unpair" }).click();
    await page
      .getByRole("status")
      .filter({ hasText: "gonebox did not answer: it is told of the unpairing when it answers again" })
      .waitFor();
    await row.waitFor({ state: "detached" });
  } finally {
    await other.stop();
  }
});
