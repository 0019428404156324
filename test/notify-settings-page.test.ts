// Settings → Notifications in real Chromium against a real relay (contract §10.3): the
// `notify` fields set from the page reach GET /api/settings and show again after a reload
// (secrets only as "set"); a bad value shows the relay's coded refusal beside its field and
// changes nothing; Remove and None take a secret and quiet hours away.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startUi, type UiKit } from "./helpers/ui-kit.ts";

let ui: UiKit;
before(async () => {
  ui = await startUi();
});
after(() => ui?.close());

const section = () => ui.page.locator("#notify-section");
const said = (key: string) => ui.page.locator(`#notify-${key}-said`);
const notify = async () => (await ui.relay.api("GET", "/api/settings")).json.notify;

async function openSettings() {
  await ui.open("settings");
  await section().getByRole("heading", { name: "Notifications" }).waitFor();
}

/** Types into a field and saves it with Enter; waits for the field to say Saved. */
async function fill(label: string, key: string, value: string) {
  const input = section().getByLabel(label, { exact: true });
  await input.fill(value);
  await input.press("Enter");
  await said(key).getByText("Saved").waitFor();
}

test("the notify fields set on the page are stored and shown again after a reload; secrets are never shown", async () => {
  const { page } = ui;
  await openSettings();
  await fill("Webhook address", "webhookUrl", "https://hooks.example.com/oar");
  await fill("Webhook secret", "webhookSecret", "s3cret-hook-77");
  await fill("ntfy topic address", "ntfyUrl", "https://ntfy.sh/oar-desk-secret-topic");
  await section().getByRole("button", { name: "Use this page's address" }).click();
  await said("publicUrl").getByText("Saved").waitFor();
  await section().getByLabel("Finished turns: Also when a turn you started finishes").check();
  await said("turnsDone").getByText("Saved").waitFor();
  await section().getByLabel("Web Push: Push to the browsers where you chose Notify me").uncheck();
  await said("webPush").getByText("Saved").waitFor();
  await section().getByLabel("From").fill("22:30");
  await section().getByLabel("to", { exact: true }).fill("07:15");
  await section().getByLabel("time zone").fill("europe/berlin");
  await section().getByLabel("time zone").press("Enter");
  await said("quietHours").getByText("Saved").waitFor();

  const stored = {
    webPush: false,
    ntfyUrl: "****",
    webhookUrl: "https://hooks.example.com/oar",
    webhookSecret: "****",
    turnsDone: true,
    quietHours: { from: "22:30", to: "07:15", tz: "Europe/Berlin" },
    publicUrl: `${ui.relay.url}/`,
  };
  assert.deepEqual(await notify(), stored);

  await page.reload();
  await openSettings();
  assert.equal(await section().getByLabel("Webhook address", { exact: true }).inputValue(), stored.webhookUrl);
  assert.equal(await section().getByLabel("Page address", { exact: true }).inputValue(), stored.publicUrl);
  for (const label of ["Webhook secret", "ntfy topic address"]) {
    const input = section().getByLabel(label, { exact: true });
    assert.equal(await input.getAttribute("type"), "password");
    assert.equal(await input.inputValue(), "");
    assert.equal(await input.getAttribute("placeholder"), "**** (set)");
  }
  assert.equal(
    await section()
      .getByLabel(/^Finished turns/)
      .isChecked(),
    true,
  );
  assert.equal(
    await section()
      .getByLabel(/^Web Push/)
      .isChecked(),
    false,
  );
  assert.equal(await section().getByLabel("From").inputValue(), "22:30");
  assert.equal(await section().getByLabel("to", { exact: true }).inputValue(), "07:15");
  assert.equal(await section().getByLabel("time zone").inputValue(), "Europe/Berlin");
  const html = await page.content();
  assert.equal(html.includes("s3cret-hook-77") || html.includes("oar-desk-secret-topic"), false);
  assert.deepEqual(ui.pageErrors, []);
});

test("a bad value shows the relay's refusal beside its field, the stored value comes back, nothing changes", async () => {
  await openSettings();
  const before = await notify();
  const url = section().getByLabel("Webhook address", { exact: true });
  await url.fill("ftp://hooks.example.com");
  const answer = ui.page.waitForResponse((r) => r.request().method() === "PATCH" && r.url().endsWith("/api/settings"));
  await url.press("Enter");
  const refused = await answer;
  assert.equal(refused.status(), 400);
  assert.equal((await refused.json()).code, "REMOTE_RELAY_INVALID_INPUT");
  await said("webhookUrl")
    .getByText(/^Not saved: Webhook address is not valid: it must be an http:\/\/ or https:\/\/ address/)
    .waitFor();
  assert.equal(await section().getByLabel("Webhook address", { exact: true }).inputValue(), before.webhookUrl);

  await section().getByLabel("time zone").fill("Mars/Olympus");
  await section().getByLabel("time zone").press("Enter");
  await said("quietHours")
    .getByText(/^Not saved: Quiet hours is not valid: tz "Mars\/Olympus" is not an IANA time zone/)
    .waitFor();
  assert.equal(await section().getByLabel("time zone").inputValue(), "Europe/Berlin");

  const page = section().getByLabel("Page address", { exact: true });
  await page.fill("https://desk.example/#token=abc");
  await page.press("Enter");
  await said("publicUrl")
    .getByText(/^Not saved: Page address is not valid: it must be the page's address alone/)
    .waitFor();
  assert.deepEqual(await notify(), before, "nothing changed");
});

test("Remove takes a secret away and None the quiet hours", async () => {
  await openSettings();
  await section()
    .locator("form", { has: ui.page.locator("#notify-webhookSecret") })
    .getByRole("button", { name: "Remove" })
    .click();
  await said("webhookSecret").getByText("Saved").waitFor();
  await section().getByRole("button", { name: "None" }).click();
  await said("quietHours").getByText("Saved").waitFor();
  const n = await notify();
  assert.equal(n.webhookSecret, null);
  assert.equal(n.quietHours, null);
  assert.equal(n.ntfyUrl, "****", "the other secret stays");
  assert.equal(await section().getByLabel("Webhook secret", { exact: true }).getAttribute("placeholder"), "not set");
  assert.deepEqual(ui.pageErrors, []);
});
