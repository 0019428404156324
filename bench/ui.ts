// bench/ui.ts: the owner's page in real Chromium against a real relay (the real clock) with
// 1,000 sessions. Measures (1) what the first load weighs on the wire, compressed, and how
// long a fresh tab takes until the live stream is open and the session list is drawn, and
// (2) how long a streamed chunk takes from the relay's stream to its text on screen: a Node
// client reads the same /api/stream and stamps each turn.delta as it arrives, the page
// stamps each chunk when it is drawn (same machine clock).
import { request } from "node:http";
import { chromium } from "playwright-core";
import { TestRelay } from "../test/helpers/relay-process.ts";
import { CHROMIUM_ARGS } from "../test/helpers/ui-kit.ts";
import { machine, summarize, table, withinTarget, type Row } from "./lib/stats.ts";

const LOADS = 20;
const CHUNKS = 200;
const BUDGET_KB = 250;

function raw(url: string, headers: Record<string, string>): Promise<{ bytes: number; raw: number }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    request({ host: u.hostname, port: u.port, path: u.pathname + u.search, headers }, (res) => {
      let bytes = 0;
      res.on("data", (c) => (bytes += c.length));
      res.on("end", () => resolve({ bytes, raw: bytes }));
    })
      .on("error", reject)
      .end();
  });
}

/** The relay's live stream read from Node: when each chunk's event arrived. */
function listen(
  relay: TestRelay,
  onDelta: (d: { text: string; offset: number }, at: number) => void,
): Promise<() => void> {
  return relay.api("POST", "/api/stream-ticket").then(
    (t) =>
      new Promise((resolve) => {
        const u = new URL(`${relay.url}/api/stream?ticket=${encodeURIComponent(t.json.ticket)}`);
        const req = request({ host: u.hostname, port: u.port, path: u.pathname + u.search }, (res) => {
          let buf = "";
          res.setEncoding("utf8");
          res.on("data", (c: string) => {
            const at = Date.now();
            buf += c;
            let i: number;
            while ((i = buf.indexOf("\n\n")) >= 0) {
              const block = buf.slice(0, i);
              buf = buf.slice(i + 2);
              if (!/^event: turn\.delta$/m.test(block)) continue;
              const data = /^data: (.*)$/m.exec(block)?.[1];
              if (data) onDelta(JSON.parse(data), at);
            }
          });
          resolve(() => req.destroy());
        });
        req.end();
      }),
  );
}

const relay = await TestRelay.start({ testClock: false });
for (let i = 0; i < 1000; i += 25)
  await Promise.all(Array.from({ length: 25 }, (_, k) => relay.createSession({ title: `Bench ${i + k}` })));
const target = await relay.createSession({ title: "Stream target" });
await relay.say(target, "warm up", 60_000);

const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });

// ---- (1) first load ----
const files = new Set<string>();
const loadMs: number[] = [];
const listMs: number[] = [];
const filesMs: number[] = [];
let listBytes = 0;
for (let i = 0; i < LOADS + 2; i++) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 820 } });
  const page = await context.newPage();
  page.on("request", (r) => {
    const u = new URL(r.url());
    if (u.pathname === "/" || u.pathname.startsWith("/app/")) files.add(u.pathname);
  });
  const t0 = Date.now();
  await page.goto(`${relay.url}/#token=${relay.token}&session=${target}`);
  await page.locator('#live[data-state="open"]').waitFor({ timeout: 60_000 });
  await page.locator("a.sess").nth(50).waitFor({ timeout: 60_000 });
  await page.getByRole("main").getByRole("heading", { name: "Stream target" }).waitFor({ timeout: 60_000 });
  if (i >= 2) {
    loadMs.push(Date.now() - t0);
    // Where the time went: the session list's answer, and the page's own files.
    const t = await page.evaluate(() =>
      performance.getEntriesByType("resource").map((e) => ({
        name: new URL(e.name).pathname + new URL(e.name).search,
        ms: e.duration,
        bytes: (e as PerformanceResourceTiming).encodedBodySize,
      })),
    );
    const list = t.find((e) => e.name.startsWith("/api/sessions?"));
    if (list) {
      listMs.push(list.ms);
      listBytes = list.bytes;
    }
    const files = t.filter((e) => e.name.startsWith("/app/"));
    filesMs.push(Math.max(0, ...files.map((e) => e.ms)));
  }
  await context.close();
}
let br = 0;
let gzip = 0;
let plain = 0;
for (const f of files) {
  br += (await raw(relay.url + f, { "accept-encoding": "br" })).bytes;
  gzip += (await raw(relay.url + f, { "accept-encoding": "gzip" })).bytes;
  plain += (await raw(relay.url + f, {})).bytes;
}

// ---- (2) chunk → text on screen ----
const context = await browser.newContext({ viewport: { width: 1280, height: 820 } });
const page = await context.newPage();
await page.goto(`${relay.url}/#token=${relay.token}&session=${target}`);
await page.locator('#live[data-state="open"]').waitFor();
await page.evaluate(() => {
  const seen = new Map<number, number>();
  (window as any).__seen = seen;
  new MutationObserver(() => {
    const md = document.querySelector(".msg-inflight .md") as HTMLElement | null;
    if (!md) return;
    const lines = md.innerText.split("\n");
    const now = Date.now();
    for (let i = lines.length - 1; i >= 0; i--) {
      const n = Number(/^chunk (\d+)$/.exec(lines[i])?.[1]);
      if (!n || seen.has(n)) break;
      seen.set(n, now);
    }
  }).observe(document.body, { subtree: true, childList: true, characterData: true });
});
const arrived = new Map<number, number>();
const stop = await listen(relay, (d, at) => {
  const n = Number(/chunk (\d+)$/.exec(d.text)?.[1]);
  if (n) arrived.set(n, at);
});
await relay.say(target, `/stream ${CHUNKS} 25`, 120_000);
await page.locator("article.msg-agent:not(.msg-inflight)", { hasText: `chunk ${CHUNKS}` }).waitFor();
stop();
const seen = new Map<number, number>(await page.evaluate(() => [...(window as any).__seen.entries()]));
const latency: number[] = [];
for (const [n, at] of arrived) if (seen.has(n)) latency.push(Math.max(0, seen.get(n)! - at));
await browser.close();
await relay.stop();

const rows: Row[] = [
  {
    metric: `fresh tab → live, list and conversation drawn (1,000 sessions)`,
    unit: "ms",
    summary: summarize(loadMs),
    target: 3000,
  },
  {
    metric: `  of which GET /api/sessions (${(listBytes / 1024).toFixed(0)} KB on the wire)`,
    unit: "ms",
    summary: summarize(listMs),
  },
  { metric: `  of which the slowest page file`, unit: "ms", summary: summarize(filesMs) },
  {
    metric: `stream chunk → its text on screen (${latency.length} of ${CHUNKS} chunks seen)`,
    unit: "ms",
    summary: summarize(latency),
    target: 500,
  },
];
const m = machine();
console.log(`machine: ${m.cpu}, ${m.cores} cores, ${m.memTotalMB.toFixed(0)} MB, node ${m.node}`);
console.log(
  `first load: ${files.size} files, ${(br / 1024).toFixed(1)} KB brotli, ${(gzip / 1024).toFixed(1)} KB gzip, ${(plain / 1024).toFixed(1)} KB uncompressed (budget ${BUDGET_KB} KB compressed)`,
);
console.log(`files: ${[...files].sort().join(" ")}`);
console.log(table(rows));
const ok = br <= BUDGET_KB * 1024 && rows.every(withinTarget);
process.exitCode = ok ? 0 : 1;
