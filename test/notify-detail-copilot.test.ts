// A real CLI's permission card says what it approves (contract §10.3, issue 22), with the
// pinned Copilot CLI in its offline set-up against a local OpenAI-compatible model server:
// Copilot sends an edit's unified diff inside its input and lists a shell line's commands
// beside the line; the card's `detail` (GET /api/cards and the page, real Chromium) shows the
// diff as a diff and the command once, with no JSON repeating them.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { FakeOpenAI, type ChatCall } from "./helpers/fake-openai.ts";
import { agentRelayEnv, missingCli } from "./helpers/agent-clis.ts";
import { TURN_MS, createSession, permissionCard, post, replyTo } from "./helpers/agents-e2e.ts";
import { cleanTemps, isolateGit, makeRepo } from "./helpers/git-repos.ts";
import { openaiTurn } from "./helpers/relay-plan.ts";
import { startUi, type UiKit } from "./helpers/ui-kit.ts";

const skip = missingCli("copilot");
let ui: UiKit;
let fake: FakeOpenAI;
const FILE = "// top\nexport const a = 1;\nexport const b = 2;\n";

/** `[[edit PATH]]`: Copilot's edit tool; `[[bash COMMAND]]`: its bash tool; then the result. */
function script(call: ChatCall) {
  const { results } = openaiTurn(call);
  if (results.length) return { text: `result: ${results[0].text}` };
  const prompt = JSON.stringify(call.messages[call.messages.map((m: any) => m.role).lastIndexOf("user")]?.content);
  const edit = /\[\[edit (\S+?)\]\]/.exec(prompt);
  if (edit)
    return {
      toolCalls: [{ name: "edit", arguments: { path: edit[1], old_str: "const a = 1;", new_str: "const a = 2;" } }],
    };
  const bash = /\[\[bash (.+?)\]\]/.exec(prompt);
  if (bash)
    return {
      toolCalls: [
        {
          name: "bash",
          arguments: { command: bash[1], description: "Remove the build folder", mode: "sync", initial_wait: 10 },
        },
      ],
    };
  return { text: "nothing asked" };
}

before(async () => {
  if (skip) return;
  isolateGit();
  fake = await FakeOpenAI.start({ apiKey: "test-key", models: ["gpt-5.4-mini"], script });
  const env = agentRelayEnv(["copilot"], {
    COPILOT_OFFLINE: "true",
    COPILOT_PROVIDER_BASE_URL: fake.baseUrl,
    COPILOT_PROVIDER_API_KEY: "test-key",
    COPILOT_MODEL: "gpt-5.4-mini",
  });
  ui = await startUi({ relay: { env } });
});
after(async () => {
  await ui?.close();
  await fake?.close();
  cleanTemps();
});

/** The pending card's detail in the API, and as the page shows it whole. */
async function shown(sessionId: string) {
  const card = await permissionCard(ui.relay, sessionId);
  await ui.open(`session=${sessionId}`);
  const pre = ui.page.locator(".card-approval .card-detail-text");
  await pre.waitFor();
  const more = ui.page.locator(".card-approval").getByRole("button", { name: /^Show all \d+ lines$/ });
  if (await more.count()) await more.click();
  return { card, page: (await pre.textContent()) ?? "" };
}

test("Copilot's edit: the card shows the file and the diff Copilot sent as a diff, not as JSON", {
  skip,
  timeout: 2 * TURN_MS,
}, async () => {
  const repo = makeRepo({ "src/a.ts": FILE });
  const path = join(repo, "src/a.ts");
  const s = await createSession(ui.relay, { provider: "copilot", title: "Copilot editor", cwd: repo, mode: "ask" });
  const m = await post(ui.relay, s, `Change a. [[edit ${path}]]`);
  const { card, page } = await shown(s);
  const d: string = card.detail;
  assert.ok(d.includes(`\nFiles: ${path}\n`), d);
  assert.match(d, /^--- a\/.*src\/a\.ts$/m);
  assert.match(d, /^@@ -1,\d+ \+1,\d+ @@$/m);
  assert.ok(d.includes("\n // top\n-export const a = 1;\n+export const a = 2;\n export const b = 2;"), d);
  assert.doesNotMatch(d, /^Input:|"diff"|^diff --git/m, "the diff is not repeated as JSON");
  assert.equal(page, d);
  assert.equal((await ui.relay.api("POST", `/api/cards/${card.id}`, { decision: "deny" })).json.status, "denied");
  await replyTo(ui.relay, s, m);
  assert.equal(readFileSync(path, "utf8"), FILE, "denied: the file is as it was");
});

test("Copilot's bash: the card shows the command once, with no JSON listing it again", {
  skip,
  timeout: 2 * TURN_MS,
}, async () => {
  const repo = makeRepo({ "README.md": "hi\n" });
  mkdirSync(join(repo, "build"));
  const s = await createSession(ui.relay, { provider: "copilot", title: "Copilot runner", cwd: repo, mode: "ask" });
  const m = await post(ui.relay, s, "Clean up. [[bash rm -rf build]]");
  const { card, page } = await shown(s);
  const d: string = card.detail;
  assert.match(d, /^Command: rm -rf build$/m);
  assert.doesNotMatch(d, /^Input:/m, "its `commands` list says nothing the command does not");
  assert.equal(page, d);
  assert.equal((await ui.relay.api("POST", `/api/cards/${card.id}`, { decision: "deny" })).json.status, "denied");
  await replyTo(ui.relay, s, m);
  assert.ok(existsSync(join(repo, "build")), "denied: nothing was removed");
  assert.deepEqual(ui.pageErrors, []);
});
