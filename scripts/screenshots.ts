// Regenerates docs/screenshots/*.png: the main views of the owner's page, desktop and phone,
// against a real relay with the scripted agent. Everything on them is made through the
// relay the way a user and an agent make it — the owner API and the scripted agent's own
// lines (/write, /usage, /tool, /ask_user, /task, /error, contract §4.1 and §10.1) — never
// by writing into the store, so anyone can make the same pictures. Run by hand:
//   node --import tsx scripts/screenshots.ts
// Needs Debian's chromium (/usr/bin/chromium).
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Page } from "playwright-core";
import { TestRelay } from "../test/helpers/relay-process.ts";
import { CHROMIUM_ARGS } from "../test/helpers/ui-kit.ts";

const OUT = resolve(fileURLToPath(new URL("../docs/screenshots/", import.meta.url)));
mkdirSync(OUT, { recursive: true });
const work = mkdtempSync(join(tmpdir(), "oar-shots-"));
const SLOW = 90_000;

const relay = await TestRelay.start();
writeFileSync(
  join(work, "greet.ts"),
  [
    "// The greeting the CLI prints.",
    "export const greeting = 'hi';",
    "",
    "export function greet(name: string): string {",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the TypeScript source written to the demo file holds a template literal
    "  return `${greeting}, ${name}`;",
    "}",
    "",
  ].join("\n"),
);
const lead = await relay.createSession({ title: "Refactor the greeting", cwd: work });
const reviewer = await relay.createSession({ title: "Review: server/", cwd: work });
const docs = await relay.createSession({ title: "Docs pass", cwd: work });
const ci = await relay.createSession({ title: "Nightly CI run", cwd: work });
await relay
  .api("POST", "/api/groups", { name: "Release 0.9.19" })
  .then((r) => relay.api("POST", `/api/groups/${r.json.id}/sessions`, { session: reviewer }));
const line = (s: string) => s.replace(/\n/g, "\\n");
await relay.say(
  lead,
  [
    "Make the greeting say hello, and add a test.",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the TypeScript source written to the demo file holds a template literal
    `/write greet.ts ${line("// The greeting the CLI prints.\nexport const greeting = 'hello';\n\nexport function greet(name: string): string {\n  return `${greeting}, ${name}!`;\n}\n")}`,
    `/write greet.test.ts ${line("import { greet } from './greet';\n\ntest('says hello', () => expect(greet('Ada')).toBe('hello, Ada!'));\n")}`,
    `/tool {"action":"send","relay":"this","session":"${reviewer}","text":"Please review greet.ts","wait_seconds":0}`,
    "/usage 18234 912 0.0431",
    "/reply I changed the greeting and added a test. Summary:",
    "/reply - `greet.ts`: the greeting now says **hello** and ends with `!`",
    "/reply - `greet.test.ts`: a test for it",
    "/reply ```ts",
    "/reply export const greeting = 'hello';",
    "/reply ```",
  ].join("\n"),
  SLOW,
);
await relay.say(lead, "/usage 5400 300 0.0122\n/reply Ran the tests again: all pass.", SLOW);
await relay.say(docs, "/usage 2200 640 0.0090\n/reply The README's install section is up to date.", SLOW);
await relay.say(ci, "/task tests echo 1 failing: greet says hello; exit 1\n/reply started the nightly tests", SLOW);
await relay.waitFor(
  async () => (await relay.session(ci)).tasks.some((t: { status: string }) => t.status === "failed"),
  SLOW,
);
await relay.api("POST", "/api/schedules", {
  session: ci,
  title: "Nightly tests",
  text: "Run the test suite and report failures.",
  every_minutes: 1440,
});
await relay.api("POST", "/api/subscriptions", {
  watcher: lead,
  sessions: [reviewer],
  events: ["turn_end", "question_asked"],
});
const asking = relay
  .say(reviewer, "/ask_user Ship the migration tonight? | Tonight | Wait for review", 600_000)
  .catch(() => {});
await relay.waitFor(async () => (await relay.api("GET", "/api/inbox")).json.questions.length > 0, SLOW);
const running = await relay.createSession({ title: "Long refactor", cwd: work });
await relay.api("POST", `/api/sessions/${running}/messages`, { text: "/stream 3 200\n/hang" });

const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
async function shot(
  name: string,
  hash: string,
  viewport: { width: number; height: number },
  prepare?: (p: Page) => Promise<void>,
) {
  const context = await browser.newContext({ viewport, colorScheme: "light" });
  const page = await context.newPage();
  // A busy machine may take a while to draw; the pictures wait for what they show.
  page.setDefaultTimeout(120_000);
  await page.goto(`${relay.url}/#token=${relay.token}${hash ? `&${hash}` : ""}`);
  await page.locator('#live[data-state="open"]').waitFor();
  await page.waitForTimeout(800);
  await prepare?.(page);
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(OUT, `${name}.png`) });
  await context.close();
  console.log(`docs/screenshots/${name}.png`);
}

const desktop = { width: 1280, height: 820 };
const phone = { width: 390, height: 844 };
await shot("desktop-home", "", desktop, (p) =>
  p
    .getByRole("region", { name: /Failed/ })
    .getByRole("link")
    .first()
    .waitFor(),
);
await shot("desktop-conversation", `session=${lead}`, desktop, async (p) => {
  const edit = p.locator("details.act-tool", { hasText: "Write greet.ts" }).first();
  if ((await edit.getAttribute("open")) === null) await edit.locator("summary").click();
  await edit.locator(".dl-add").first().waitFor();
  await p.locator(".hljs-keyword").first().waitFor();
});
await shot("desktop-changes", `session=${lead}`, desktop, async (p) => {
  await p.getByRole("button", { name: "Changes" }).click();
  const file = p.locator("details.change-file").first();
  if ((await file.getAttribute("open")) === null) await file.locator("summary").click();
  await file.locator(".dl-add").first().waitFor();
});
await shot("desktop-needs-you", `session=${reviewer}`, desktop, (p) =>
  p.getByRole("group", { name: /Question:/ }).waitFor(),
);
await shot("desktop-inbox", "inbox", desktop, (p) => p.getByRole("group", { name: /Question:/ }).waitFor());
await shot("desktop-search", "search=greeting", desktop, (p) => p.locator(".hit mark").first().waitFor());
await shot("desktop-schedules", "schedules", desktop, (p) =>
  p.getByRole("list", { name: "Schedules" }).getByText("Nightly tests").waitFor(),
);
await shot("desktop-settings", "settings", desktop, async (p) => {
  await p.getByRole("group", { name: "Provider Scripted" }).waitFor();
  await p.locator("#usage").scrollIntoViewIfNeeded();
  await p.locator("#usage canvas").waitFor();
});
await shot("phone-conversation", `session=${lead}`, phone);
await shot("phone-running", `session=${running}`, phone, (p) =>
  p.getByRole("button", { name: "Stop", exact: true }).and(p.locator(":enabled")).waitFor(),
);
await shot("phone-home", "", phone, (p) => p.getByRole("region", { name: /Failed/ }).waitFor());
await shot("phone-list", `session=${lead}`, phone, (p) => p.getByRole("button", { name: "Sessions" }).click());
await browser.close();
writeFileSync(join(OUT, ".gitattributes"), "*.png binary\n");
void asking;
await relay.stop();
