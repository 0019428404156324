// Layout, keyboard and weight in real Chromium: on a phone (390×844) the list folds away and
// the conversation gets the screen; every step of a conversation works from the keyboard;
// a list of 1,000 sessions draws a page at a time; the first load stays under its budget,
// compressed, with validators and the strict CSP.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { request } from "node:http";
import { startUi, convTitle, sessionLink, SLOW, type UiKit } from "./helpers/ui-kit.ts";

let ui: UiKit;
before(async () => {
  ui = await startUi();
});
after(() => ui?.close());

test("on a phone the conversation gets the screen and the list opens from ☰", async () => {
  const { page, relay } = ui;
  const a = await relay.createSession({ title: "Phone A" });
  const b = await relay.createSession({ title: "Phone B" });
  await relay.say(a, "hello", SLOW);
  await page.setViewportSize({ width: 390, height: 844 });
  await ui.open(`session=${a}`);
  await convTitle(page, "Phone A").waitFor();
  assert.equal(await page.locator("#sidebar").isVisible(), false);
  const scroll = await page.locator(".conv-scroll").boundingBox();
  assert.ok(scroll!.height >= 450, `message area ${scroll!.height} px tall`);
  const composer = await page.getByLabel("Message", { exact: true }).boundingBox();
  assert.ok(composer!.y + composer!.height <= 844, "the message box is on screen");
  assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 390, "nothing wider than the screen");

  const toggle = page.getByRole("button", { name: "Sessions" });
  await toggle.click();
  assert.equal(await toggle.getAttribute("aria-expanded"), "true");
  await sessionLink(page, b).click();
  await convTitle(page, "Phone B").waitFor();
  assert.equal(await page.locator("#sidebar").isVisible(), false);
  assert.equal(await toggle.getAttribute("aria-expanded"), "false");
  await page.setViewportSize({ width: 1280, height: 820 });
});

test("the keyboard alone opens a session, sends, answers a question and stops a turn", async () => {
  const { page, relay } = ui;
  const id = await relay.createSession({ title: "Keys" });
  await ui.open();
  await sessionLink(page, id).waitFor();
  const focusedIs = (fn: string) => page.evaluate(fn);
  for (
    let i = 0;
    i < 40 && !(await focusedIs(`document.activeElement?.dataset?.session === ${JSON.stringify(id)}`));
    i++
  )
    await page.keyboard.press("Tab");
  await page.keyboard.press("Enter");
  await convTitle(page, "Keys").waitFor();
  // The message box has the focus; Enter sends.
  await page.keyboard.type("/ask_user Pick one | Red | Blue");
  await page.keyboard.press("Enter");
  const card = page.getByRole("group", { name: "Question: Pick one" });
  await card.waitFor();
  for (let i = 0; i < 20 && !(await focusedIs(`document.activeElement?.textContent === "Blue"`)); i++)
    await page.keyboard.press("Shift+Tab");
  await page.keyboard.press("Enter");
  await page.locator("article.msg-agent", { hasText: "answer: Blue" }).waitFor();

  await page.getByLabel("Message", { exact: true }).focus();
  await page.keyboard.type("/hang");
  await page.keyboard.press("Enter");
  await page.locator("article.msg-inflight").waitFor();
  // The in-flight reply shows from the turn's start; the page re-renders its title bar as the
  // turn's events arrive, and a keypress on a Stop button being replaced is lost. Pressed
  // again (focus is re-taken each time) until the relay says the turn is no longer running.
  for (let i = 0; i < 40; i++) {
    await page
      .getByRole("button", { name: "Stop" })
      .focus()
      .catch(() => {});
    await page.keyboard.press("Enter").catch(() => {});
    await new Promise((r) => setTimeout(r, 250));
    if ((await relay.session(id)).state !== "running_turn") break;
  }
  await page.getByRole("note", { name: "Turn stopped" }).waitFor();
  // Every control on the page has a name a screen reader can say.
  const unnamed = await page.evaluate(() =>
    [...document.querySelectorAll("button, input, select, textarea, a[href]")]
      .filter((el) => (el as HTMLElement).offsetParent !== null)
      .filter((el) => {
        const label =
          el.getAttribute("aria-label") ||
          (el as HTMLElement).innerText?.trim() ||
          el.getAttribute("title") ||
          (el as HTMLInputElement).labels?.[0]?.innerText?.trim() ||
          el.getAttribute("placeholder");
        return !label;
      })
      .map((el) => el.outerHTML.slice(0, 120)),
  );
  assert.deepEqual(unnamed, []);
});

test("a list of 1,000 sessions draws a page at a time", async () => {
  const { page, relay } = ui;
  const ids: string[] = [];
  for (let i = 0; i < 1000; i += 20)
    ids.push(
      ...(await Promise.all(Array.from({ length: 20 }, (_, k) => relay.createSession({ title: `Bulk ${i + k}` })))),
    );
  await ui.open();
  // (On the manual clock all 1,000 share one activity time: which come first is the relay's tie order.)
  await page.locator("a.sess").nth(20).waitFor();
  const drawn = await page.locator("a.sess").count();
  assert.ok(drawn > 0 && drawn <= 200, `${drawn} entries drawn`);
  await page.getByRole("button", { name: "Show more" }).click();
  await page.waitForFunction((n) => document.querySelectorAll("a.sess").length > n, drawn);
  // The filter still finds one far down the list.
  await page.getByLabel("Filter sessions").fill("Bulk 3");
  await sessionLink(page, ids[3]).waitFor();
  await page.waitForFunction(() =>
    [...document.querySelectorAll("a.sess .sess-title")].every((t) => t.textContent!.includes("Bulk 3")),
  );
});

function raw(
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; bytes: number; headers: Record<string, string | string[] | undefined> }> {
  const u = new URL(ui.relay.url + path);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path: u.pathname, headers }, (res) => {
      let bytes = 0;
      res.on("data", (c) => (bytes += c.length));
      res.on("end", () => resolve({ status: res.statusCode!, bytes, headers: res.headers }));
    });
    req.on("error", reject);
    req.end();
  });
}

test("the first load is under 250 KB compressed, revalidates with ETags, keeps the CSP", async () => {
  // A fresh tab, so every file of the first load is requested.
  const context = await ui.browser.newContext();
  const page = await context.newPage();
  const loaded: string[] = [];
  page.on("request", (r) => {
    const u = new URL(r.url());
    if (u.pathname === "/" || u.pathname.startsWith("/app/")) loaded.push(u.pathname);
  });
  await page.goto(`${ui.relay.url}/#token=${ui.relay.token}&settings`);
  await page.getByRole("group", { name: "Provider Scripted" }).waitFor();
  await context.close();
  const paths = [...new Set(["/", ...loaded])];
  assert.ok(paths.includes("/app/vendor-marked.js") && paths.includes("/app/vendor-purify.js"), paths.join(" "));
  let total = 0;
  for (const p of paths) {
    const r = await raw(p, { "accept-encoding": "gzip, br" });
    assert.equal(r.status, 200, p);
    assert.equal(r.headers["content-encoding"], "br", p);
    assert.ok(r.headers.etag, p);
    total += r.bytes;
    const again = await raw(p, { "accept-encoding": "gzip, br", "if-none-match": String(r.headers.etag) });
    assert.equal(again.status, 304, p);
    assert.equal(again.bytes, 0, p);
  }
  assert.ok(total <= 250 * 1024, `first load ${total} bytes`);
  const html = await raw("/", { "accept-encoding": "gzip" });
  assert.equal(html.headers["content-encoding"], "gzip");
  assert.match(String(html.headers["content-security-policy"]), /script-src 'self';/);
  assert.doesNotMatch(String(html.headers["content-security-policy"]), /unsafe/);
  assert.deepEqual(ui.pageErrors, []);
});
