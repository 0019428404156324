// The title bar's agentStart badge in real Chromium: a session's first start (`new`) with a note
// shows it too, not only `resumed` and `fresh` starts. The note comes the real way: the fake ACP
// agent on PATH as `qwen` never connects relay_tool, so the first prompt goes out without it and
// the relay writes "relay_tool was not available: …" (as in providers-qwen-mcp-wait.test.ts).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { TestRelay } from "./helpers/relay-process.ts";
import { fakeCliDir, withEnv } from "./helpers/fake-cli.ts";
import { startUi, convTitle, type UiKit } from "./helpers/ui-kit.ts";

let ui: UiKit;
before(async () => {
  const dir = fakeCliDir({ only: ["qwen"] });
  const relay = await withEnv({ PATH: `${dir}:${process.env.PATH}` }, () => TestRelay.start());
  ui = await startUi({ relayInstance: relay });
  await relay.waitFor(
    async () => (await relay.api("GET", "/api/providers")).json.providers.find((p: any) => p.id === "qwen")?.checkedAt,
    90_000,
  );
});
after(() => ui?.close());

test("a new start with a note shows it on the title bar: its first clause on the badge, the whole note in its tooltip", async () => {
  const { page, relay } = ui;
  const id = await relay.createSession({ provider: "qwen", model: "qwen-test", mode: "agent", title: "No tool" });
  await ui.open(`session=${id}`);
  await convTitle(page, "No tool").waitFor();
  // Before its first start: no agentStart, no badge.
  assert.equal((await relay.session(id)).agentStart, null);
  assert.equal(await page.locator(".conv-title-row .badge-start-note").count(), 0);

  const reply = await relay.say(id, "/reloads", 90_000);
  assert.match(reply.text, /^reloads: [1-3]$/);
  const s = await relay.session(id);
  assert.equal(s.agentStart.how, "new");
  assert.match(s.agentStart.note, /^relay_tool was not available: /);

  await ui.open(`session=${id}`);
  const row = page.locator(".conv-title-row");
  const mark = row.locator(".badge-start-note");
  await mark.waitFor();
  assert.equal(await mark.innerText(), "relay_tool was not available");
  assert.equal(await mark.getAttribute("title"), `When its agent process started: ${s.agentStart.note}`);
  assert.doesNotMatch(await row.innerText(), /undefined|null|resumed|fresh start/);
  assert.deepEqual(ui.pageErrors, []);
});
