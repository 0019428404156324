// Shared set-up for the browser tests: real Chromium (Debian's) against a real relay
// process, with every /api request counted and every page error kept.
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { TestRelay, type StartOpts } from "./relay-process.ts";

export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
/** Turns that wait on the page include worker start-up on a busy machine. */
export const SLOW = 90_000;

export interface UiKit {
  relay: TestRelay;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** method + path (+ query) of every /api request the page made */
  requests: { method: string; path: string; query: string }[];
  pageErrors: string[];
  /** Opens the page signed in, at #hash when given, and waits for the live stream. */
  open(hash?: string): Promise<void>;
  close(): Promise<void>;
}

export async function startUi(
  opts: {
    relay?: StartOpts;
    viewport?: { width: number; height: number };
    permissions?: string[];
    initScript?: string;
    relayInstance?: TestRelay;
  } = {},
): Promise<UiKit> {
  const relay = opts.relayInstance ?? (await TestRelay.start(opts.relay));
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
  const context = await browser.newContext({ viewport: opts.viewport ?? { width: 1280, height: 820 } });
  if (opts.permissions) await context.grantPermissions(opts.permissions, { origin: relay.url });
  if (opts.initScript) await context.addInitScript(opts.initScript);
  const page = await context.newPage();
  page.setDefaultTimeout(45_000);
  const requests: UiKit["requests"] = [];
  const pageErrors: string[] = [];
  page.on("request", (r) => {
    const u = new URL(r.url());
    if (u.pathname.startsWith("/api/")) requests.push({ method: r.method(), path: u.pathname, query: u.search });
  });
  page.on("pageerror", (e) => pageErrors.push(String(e)));
  page.on("console", (m) => {
    if (m.type() === "error" && !m.text().startsWith("Failed to load resource")) pageErrors.push(m.text());
  });
  return {
    relay,
    browser,
    context,
    page,
    requests,
    pageErrors,
    async open(hash = "") {
      await page.goto(`${relay.url}/#token=${relay.token}${hash ? `&${hash}` : ""}`);
      await page.locator('#live[data-state="open"]').waitFor();
    },
    async close() {
      await browser.close().catch(() => {});
      await relay.stop();
    },
  };
}

export const sessionLink = (page: Page, id: string) => page.locator(`a.sess[data-session="${id}"]`);
export const convTitle = (page: Page, name: string) =>
  page.getByRole("main").getByRole("heading", { name, exact: true });
