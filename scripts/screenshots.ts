// Regenerates docs/screenshots/*.png: the main views of the owner's page, desktop and phone,
// against a real relay with the scripted agent. Run by hand (not part of the tests):
//   node --import tsx scripts/screenshots.ts
// Needs Debian's chromium (/usr/bin/chromium).
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { chromium } from "playwright-core";
import { TestRelay } from "../test/helpers/relay-process.ts";
import { CHROMIUM_ARGS } from "../test/helpers/ui-kit.ts";

const OUT = resolve(fileURLToPath(new URL("../docs/screenshots/", import.meta.url)));
mkdirSync(OUT, { recursive: true });
const work = mkdtempSync(join(tmpdir(), "oar-shots-"));

const relay = await TestRelay.start();
const lead = await relay.createSession({ title: "Refactor the parser", cwd: work });
const reply = await relay.say(lead, [
  "/reply I changed the greeting and ran the tests. Summary:",
  "/reply - `src/a.ts`: the greeting now says **hello**",
  "/reply - one test still fails (see below)",
  "/reply ```ts",
  "/reply export const greet = 'hello';",
  "/reply ```",
].join("\n"), 90_000);
const reviewer = await relay.createSession({ title: "Review: server/" });
await relay.api("POST", `/api/groups`, { name: "Release 0.9.19" }).then((r) => relay.api("POST", `/api/groups/${r.json.id}/sessions`, { session: reviewer }));
await relay.createSession({ title: "Docs pass", provider: "scripted" });
await relay.kill();
const db = new Database(join(relay.dataDir, "oar.db"));
db.prepare("UPDATE messages SET meta_json = ? WHERE id = ?").run(JSON.stringify({
  model: "scripted-1", status: "done", error: null,
  activity: [
    { kind: "thought", text: "Read the file first, then change the greeting and run the tests." },
    { kind: "tool", id: "t1", title: "Read src/a.ts", toolKind: "read", status: "completed", locations: ["src/a.ts"] },
    { kind: "tool", id: "t2", title: "Edit src/a.ts", toolKind: "edit", status: "completed", diffs: [{ path: "src/a.ts", oldText: "// greeting\nexport const greet = 'hi';\n", newText: "// greeting\nexport const greet = 'hello';\n" }] },
    { kind: "tool", id: "t3", title: "npm test", toolKind: "execute", status: "failed", output: "1 failing: greet() says hello" },
    { kind: "tool", id: "t4", title: "relay_tool", toolKind: "other", status: "completed", relay: { action: "send", relay: "desk", session: reviewer } },
  ],
  usage: { inputTokens: 18234, outputTokens: 912, cachedTokens: 12000, costUsd: 0.0431 },
}), reply.id);
db.close();
await relay.boot();
const asking = relay.say(reviewer, "/ask_user Ship the migration tonight? | Tonight | Wait for review", 600_000).catch(() => {});

const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
async function shot(name: string, hash: string, viewport: { width: number; height: number }, prepare?: (p: import("playwright-core").Page) => Promise<void>) {
  const context = await browser.newContext({ viewport, colorScheme: "light" });
  const page = await context.newPage();
  await page.goto(`${relay.url}/#token=${relay.token}${hash ? `&${hash}` : ""}`);
  await page.locator('#live[data-state="open"]').waitFor();
  await page.waitForTimeout(800);
  await prepare?.(page);
  await page.screenshot({ path: join(OUT, `${name}.png`) });
  await context.close();
  console.log(`docs/screenshots/${name}.png`);
}

const desktop = { width: 1280, height: 820 };
const phone = { width: 390, height: 844 };
await shot("desktop-conversation", `session=${lead}`, desktop, async (p) => {
  await p.locator("details.act-tool", { hasText: "Edit src/a.ts" }).locator("summary").click();
  await p.locator(".dl-add").first().waitFor();
});
await shot("desktop-needs-you", `session=${reviewer}`, desktop, (p) => p.getByRole("group", { name: /Question:/ }).waitFor());
await shot("desktop-inbox", "inbox", desktop, (p) => p.getByRole("group", { name: /Question:/ }).waitFor());
await shot("desktop-settings", "settings", desktop, (p) => p.getByRole("group", { name: "Provider Scripted" }).waitFor());
await shot("phone-conversation", `session=${lead}`, phone);
await shot("phone-list", `session=${lead}`, phone, (p) => p.getByRole("button", { name: "Sessions" }).click());
await browser.close();
writeFileSync(join(OUT, ".gitattributes"), "*.png binary\n");
void asking;
await relay.stop();
