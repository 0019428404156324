// The login card a newcomer meets (issue 18 item 16): it names the relay's real data folder
// (where owner-token is) and the command that prints the link again, and the page carries
// the folder's path only, never the token.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startUi, type UiKit } from "./helpers/ui-kit.ts";
import { shownDataDir } from "../src/web/ui.ts";

let ui: UiKit;
before(async () => {
  ui = await startUi();
});
after(() => ui.close());

test("the login card names this relay's data folder and `oar url`, and the page holds no token", async () => {
  const { page, relay } = ui;
  await page.goto(`${relay.url}/`);
  const card = page.locator("form.login-card");
  await card.getByLabel("Owner token").waitFor();
  const words = (await card.innerText()).replace(/\s+/g, " ");
  // The relay's folder, as the relay shows it (a temp folder outside the home folder: as it is).
  const dir = shownDataDir(relay.dataDir);
  assert.ok(relay.dataDir.endsWith(dir.replace(/^~/, "")), dir);
  assert.ok(words.includes(`paste the token from ${dir}/owner-token:`), words);
  assert.ok(words.includes(`oar url --data ${dir} prints it again`), words);
  assert.doesNotMatch(words, /DIR\/owner-token/);
  const html = await (await fetch(`${relay.url}/`)).text();
  assert.ok(!html.includes(relay.token));
  assert.deepEqual(ui.pageErrors, []);

  // The token from that file opens the page.
  await card.getByLabel("Owner token").fill(relay.token);
  await card.getByRole("button", { name: "Open" }).click();
  await page.locator('#live[data-state="open"]').waitFor();
});

test("a data folder under the home folder is shown as ~/…", () => {
  assert.equal(shownDataDir("/home/ann/.oar", "/home/ann"), "~/.oar");
  assert.equal(shownDataDir("/home/ann/relays/a", "/home/ann"), "~/relays/a");
  assert.equal(shownDataDir("/home/anne/.oar", "/home/ann"), "/home/anne/.oar");
  assert.equal(shownDataDir("/srv/oar", "/"), "/srv/oar");
});
