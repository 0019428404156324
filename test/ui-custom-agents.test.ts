// Settings → Providers → Custom agents in real Chromium (contract §10.2): the owner adds an ACP
// agent by its command with a secret variable; it is listed (the variable's name, never its
// value), becomes a provider row and a New session choice, and can be removed.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { startUi, type UiKit } from "./helpers/ui-kit.ts";
import { fakeCliDir } from "./helpers/fake-cli.ts";

const SECRET = "ui-secret-value-9931";
let ui: UiKit;
before(async () => {
  ui = await startUi();
  await ui.open("settings");
  await ui.page.getByRole("main").getByRole("heading", { name: "Settings", exact: true }).waitFor();
});
after(() => ui?.close());

test("a custom agent added in the form becomes a provider and a New session choice; its secret never shows", async () => {
  const { page, relay } = ui;
  const form = page.getByRole("region", { name: "Custom agents" });
  await form.getByLabel("Id").fill("team-agent");
  await form.getByLabel("Name").fill("Team agent");
  await form.getByLabel("Command").fill(join(fakeCliDir({ only: ["copilot"] }), "copilot"));
  await form.getByLabel(/^Environment/).fill(`TEAM_TOKEN=${SECRET}`);
  await form.getByRole("button", { name: "Add agent" }).click();
  await page.getByRole("group", { name: "Provider Team agent", exact: true }).waitFor();
  await form.getByText("env TEAM_TOKEN").waitFor();
  const saved = (await relay.api("GET", "/api/settings")).json.customAgents;
  assert.deepEqual(
    saved.map((a: any) => [a.id, a.env]),
    [["team-agent", { TEAM_TOKEN: "****" }]],
  );
  assert.equal((await page.content()).includes(SECRET), false);

  await page.getByRole("link", { name: "New session" }).click();
  await page.locator("#new-provider option[value=team-agent]").waitFor({ state: "attached" });

  await ui.open("settings");
  await page.getByRole("button", { name: "Remove Team agent" }).click();
  await relay.waitFor(async () => (await relay.api("GET", "/api/settings")).json.customAgents.length === 0);
  await page.getByRole("group", { name: "Provider Team agent", exact: true }).waitFor({ state: "detached" });
});

test("a refused entry says why in the form", async () => {
  const { page } = ui;
  const form = page.getByRole("region", { name: "Custom agents" });
  await form.getByLabel("Id").fill("claude");
  await form.getByLabel("Name").fill("Not mine");
  await form.getByLabel("Command").fill("claude");
  await form.getByRole("button", { name: "Add agent" }).click();
  await form
    .getByRole("alert")
    .filter({ hasText: /built-in provider/ })
    .waitFor();
});
