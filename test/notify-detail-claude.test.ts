// A real CLI's permission card says what it approves (contract §10.3, issue 22): the pinned
// claude-agent-acp (Claude Code inside), in ask mode, asks before its Edit and its Bash; the
// card's `detail` in GET /api/cards and on the page (real Chromium) names the tool, the file
// and the diff against the file itself (its line numbers and context, not only the fragment
// Claude sends), the command and what it is for, with no raw JSON repeating them. The model
// is a local Anthropic Messages server that answers with Claude Code's Read, Edit and Bash.
// The Edit card's webhook notification carries the same detail.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { FakeAnthropic, lastUserText, toolResults, toolsCalled, type MessagesCall } from "./helpers/fake-anthropic.ts";
import { agentRelayEnv, missingCli } from "./helpers/agent-clis.ts";
import { TURN_MS, createSession, permissionCard, post, replyTo } from "./helpers/agents-e2e.ts";
import { cleanTemps, isolateGit, makeRepo } from "./helpers/git-repos.ts";
import { startUi, type UiKit } from "./helpers/ui-kit.ts";
import { WebhookReceiver } from "./helpers/notify-receivers.ts";

const skip = missingCli("claude");
let ui: UiKit;
let fake: FakeAnthropic;
let hook: WebhookReceiver;

const FILE = "// top\nexport const a = 1;\nexport const b = 2;\n";

/** `[[edit PATH]]`: Read it (Claude Code edits only a file it has read), then Edit it.
 * `[[bash COMMAND]]`: run it with Bash. Then say what came back. */
function script(call: MessagesCall) {
  if (!call.tools.includes("Edit")) return { text: "ok" };
  const prompt = lastUserText(call);
  const done = toolsCalled(call);
  const result = toolResults(call)[0]?.text;
  const edit = /\[\[edit (\S+)\]\]/.exec(prompt);
  if (edit && !done.includes("Read")) return { toolUses: [{ name: "Read", input: { file_path: edit[1] } }] };
  if (edit && !done.includes("Edit"))
    return {
      toolUses: [
        { name: "Edit", input: { file_path: edit[1], old_string: "const a = 1;", new_string: "const a = 2;" } },
      ],
    };
  const bash = /\[\[bash (.+)\]\]/.exec(prompt);
  if (bash && !done.includes("Bash"))
    return { toolUses: [{ name: "Bash", input: { command: bash[1], description: "Remove the build folder" } }] };
  return { text: `result: ${result}` };
}

before(async () => {
  if (skip) return;
  isolateGit();
  fake = await FakeAnthropic.start({ apiKey: "test-key", script });
  hook = await WebhookReceiver.start("hook-secret");
  ui = await startUi({
    relay: {
      env: agentRelayEnv(["claude"], { ANTHROPIC_BASE_URL: fake.baseUrl, ANTHROPIC_API_KEY: "test-key" }),
      settings: { notify: { webhookUrl: hook.url, webhookSecret: "hook-secret" } },
    },
  });
});
after(async () => {
  await ui?.close();
  await fake?.close();
  await hook?.close();
  cleanTemps();
});

/** The pending card as the owner API lists it, and its detail as the page shows it whole. */
async function shown(sessionId: string) {
  const card = await permissionCard(ui.relay, sessionId);
  await ui.open(`session=${sessionId}`);
  const box = ui.page.locator(".card-approval").filter({ has: ui.page.locator(".card-detail-text") });
  await box.waitFor();
  const more = box.getByRole("button", { name: /^Show all \d+ lines$/ });
  if (await more.count()) await more.click();
  return {
    card,
    page: (await box.locator(".card-detail-text").textContent()) ?? "",
    title: (await box.locator(".card-title").textContent()) ?? "",
    added: await box.locator(".card-detail-text .dl-add").allTextContents(),
    removed: await box.locator(".card-detail-text .dl-del").allTextContents(),
  };
}

test("Claude Code's Edit: the card names the tool and the file and shows the diff against the file, in the API and on the page", {
  skip,
  timeout: 2 * TURN_MS,
}, async () => {
  const repo = makeRepo({ "src/a.ts": FILE });
  const path = join(repo, "src/a.ts");
  const s = await createSession(ui.relay, { provider: "claude", title: "Editor", cwd: repo, mode: "ask" });
  const m = await post(ui.relay, s, `Change a. [[edit ${path}]]`);
  const { card, page, title, added, removed } = await shown(s);

  const d: string = card.detail;
  assert.match(d, /^Tool: Edit src\/a\.ts$/m);
  assert.ok(d.includes(`\nFiles: ${path}\n`), d);
  // The diff of the file itself: its line numbers, the line above as context, no banner.
  assert.ok(
    d.includes(
      `--- ${path}\n+++ ${path}\n@@ -1,3 +1,3 @@\n // top\n-export const a = 1;\n+export const a = 2;\n export const b = 2;`,
    ),
    d,
  );
  assert.doesNotMatch(d, /^={10,}$/m);
  assert.doesNotMatch(d, /old_string|new_string|^Input:/m, "no JSON repeating what the diff shows");
  // The page shows the same text, the diff's lines marked, under a title without JSON.
  assert.equal(page, d);
  assert.deepEqual(added, ["+export const a = 2;"]);
  assert.deepEqual(removed, ["-export const a = 1;"]);
  assert.equal(title, "Claude asks to use Edit src/a.ts");
  assert.equal(await ui.page.locator(".card-approval .card-details").count(), 0);
  // Its notification (the first, so at once) carries the same detail under a title without JSON.
  const [sent] = await hook.received(1);
  assert.equal(sent.signed, true);
  assert.equal(sent.json.title, "Claude asks to use Edit src/a.ts");
  assert.equal(sent.json.text, d);

  assert.equal((await ui.relay.api("POST", `/api/cards/${card.id}`, { decision: "deny" })).json.status, "denied");
  await replyTo(ui.relay, s, m);
  assert.equal(readFileSync(path, "utf8"), FILE, "denied: the file is as it was");
  // Decided, it stays in the conversation as one line, titled as the card was.
  await ui.page
    .locator(".card-outcome .compact-text")
    .getByText("Denied: Claude asks to use Edit src/a.ts", { exact: true })
    .waitFor();
  assert.deepEqual(ui.pageErrors, []);
});

test("Claude Code's Bash: the card shows the command and what it is for, in the API and on the page", {
  skip,
  timeout: 2 * TURN_MS,
}, async () => {
  const repo = makeRepo({ "README.md": "hi\n" });
  mkdirSync(join(repo, "build"));
  const s = await createSession(ui.relay, { provider: "claude", title: "Runner", cwd: repo, mode: "ask" });
  const command = 'rm -rf build && echo "gone"';
  const m = await post(ui.relay, s, `Clean up. [[bash ${command}]]`);
  const { card, page, title } = await shown(s);

  const d: string = card.detail;
  assert.match(d, /^Tool: shell command \(execute\)$/m);
  assert.ok(d.includes(`\nCommand: ${command}\n`), d);
  assert.match(d, /^Description: Remove the build folder$/m);
  assert.doesNotMatch(d, /^Input:/m, "the command and its description are all of its input");
  assert.equal(page, d);
  assert.equal(title, `Claude asks to use ${command}`);

  assert.equal((await ui.relay.api("POST", `/api/cards/${card.id}`, { decision: "deny" })).json.status, "denied");
  await replyTo(ui.relay, s, m);
  assert.ok(existsSync(join(repo, "build")), "denied: nothing was removed");
  assert.deepEqual(ui.pageErrors, []);
});
