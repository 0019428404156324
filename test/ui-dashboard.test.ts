// The page's second round (issue 23) in real Chromium, on a desktop (1280×800) and a phone
// (390×844): the home is a dashboard and never says "no sessions" while there are some;
// failures show in the list and the title bar in words; list entries have a time, a preview
// and a tooltip, and the open one keeps its place; unarchive; search; no literal null or
// undefined and no emoji pictograph anywhere; Ctrl-K and Esc.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startUi, sessionLink, convTitle, SLOW, type UiKit } from "./helpers/ui-kit.ts";
import type { Page } from "playwright-core";

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

// Records whether the page ever said "no sessions" (a MutationObserver from the first paint).
const WATCH_EMPTY = `window.__saidEmpty = false;
new MutationObserver(() => { if (/No sessions yet/.test(document.body?.innerText ?? "")) window.__saidEmpty = true; })
  .observe(document, { subtree: true, childList: true, characterData: true });`;

let ui: UiKit;
before(async () => {
  ui = await startUi({ viewport: DESKTOP, initScript: WATCH_EMPTY });
});
after(() => ui?.close());

/** Text on screen that reads as a program's value, not words (or a time in the program's form). */
async function literalNulls(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    // What someone wrote (a prompt, an agent's reply, quoted in a preview or a search hit) is
    // shown as written; the page's own words (a relay_tool line too) never hold an ISO time
    // such as 2026-12-02T01:44Z.
    const written = ".msg-body, .sess-preview, .dash-preview, .hit-snippet, pre, code";
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      const text = n.textContent ?? "";
      const el = n.parentElement;
      const iso = /\d{4}-\d\d-\d\dT\d\d:\d\d/.test(text) && (!el?.closest(written) || !!el.closest(".tool-call"));
      if (/\b(null|undefined|NaN|\[object Object\])\b/.test(text) || iso) out.push(text.slice(0, 120));
    }
    for (const el of document.querySelectorAll("[title], [aria-label], [placeholder]")) {
      for (const a of ["title", "aria-label", "placeholder"])
        if (/\b(null|undefined|NaN)\b/.test(el.getAttribute(a) ?? "")) out.push(`${a}=${el.getAttribute(a)}`);
    }
    return out;
  });
}

/** Pictographs that need an emoji font (text symbols such as ✓ ✗ ★ ⚠ are fine). */
async function pictographs(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const ok = new Set([
      "✓",
      "✗",
      "★",
      "⚠",
      "↗",
      "◎",
      "●",
      "○",
      "◐",
      "▾",
      "▸",
      "⌘",
      "↑",
      "↓",
      "→",
      "←",
      "…",
      "·",
      "Σ",
      "−",
      "×",
      "↔",
    ]);
    const found = new Set<string>();
    for (const ch of document.body.innerText) if (/\p{Extended_Pictographic}/u.test(ch) && !ok.has(ch)) found.add(ch);
    return [...found];
  });
}

test("the home is a dashboard and never says there are no sessions while there are", async () => {
  const { page, relay } = ui;
  // Before any session: it says so, once the list has loaded.
  await ui.open();
  await page.getByText("No sessions yet. Start one with New session.").waitFor();
  const fine = await relay.createSession({ title: "Went well" });
  await relay.say(fine, "all good", SLOW);
  const broke = await relay.createSession({ title: "Went wrong" });
  await relay.say(broke, "/error the build broke", SLOW);
  const asker = await relay.createSession({ title: "Has a question" });
  const asked = relay.say(asker, "/ask_user Merge now? | Yes | No", SLOW);
  await relay.waitFor(async () => (await relay.api("GET", "/api/inbox")).json.questions.length > 0, SLOW);
  const busy = await relay.createSession({ title: "Still working" });
  await relay.api("POST", `/api/sessions/${busy}/messages`, { text: "/hang" });
  await relay.waitFor(async () => (await relay.session(busy)).state === "running_turn", SLOW);
  // Reloaded a few times, on a desktop and on a phone (the list closed, the home on screen).
  for (const viewport of [DESKTOP, PHONE, DESKTOP, PHONE]) {
    await page.setViewportSize(viewport);
    await page.evaluate(() => ((window as any).__saidEmpty = false));
    await page.reload();
    await page.locator('#live[data-state="open"]').waitFor();
    const home = page.getByRole("main");
    await home
      .getByRole("region", { name: /Needs you/ })
      .getByRole("link", { name: /Has a question/ })
      .waitFor();
    await home
      .getByRole("region", { name: /Running/ })
      .getByRole("link", { name: /Still working/ })
      .waitFor();
    await home
      .getByRole("region", { name: /Failed/ })
      .getByRole("link", { name: /Went wrong/ })
      .waitFor();
    await home
      .getByRole("region", { name: /Failed/ })
      .getByText("last turn failed: the build broke")
      .waitFor();
    await home
      .getByRole("region", { name: /Just finished/ })
      .getByRole("link", { name: /Went well/ })
      .waitFor();
    assert.equal(await page.evaluate(() => (window as any).__saidEmpty), false, "never said no sessions");
    assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= viewport.width);
  }
  await page.setViewportSize(DESKTOP);
  await relay.api("POST", `/api/sessions/${busy}/stop`);
  // Each is a link to its session.
  await page
    .getByRole("main")
    .getByRole("region", { name: /Failed/ })
    .getByRole("link", { name: /Went wrong/ })
    .click();
  await convTitle(page, "Went wrong").waitFor();
  await page.getByRole("group", { name: "Question: Merge now?" }).count();
  await relay.api("POST", `/api/questions/${(await relay.api("GET", "/api/inbox")).json.questions[0].id}`, {
    choice: "Yes",
  });
  await asked;
});

test("a failed turn and a failed task mark the session in the list and the title bar, in words", async () => {
  const { page, relay } = ui;
  const cwd = mkdtempSync(join(tmpdir(), "oar-ui-fail-"));
  const turn = await relay.createSession({ title: "Turn fails", cwd });
  await relay.say(turn, "/error disk full", SLOW);
  const task = await relay.createSession({ title: "Task fails", cwd });
  await relay.say(task, "/task build exit 1", SLOW);
  await relay.waitFor(async () => (await relay.session(task)).tasks.some((t: any) => t.status === "failed"), SLOW);
  const failures = [
    [turn, "Turn fails", "last turn failed: disk full"],
    [task, "Task fails", "task “build” failed (exit 1)"],
  ];
  // On a phone the list opens from its button; the marks and words are the same.
  await page.setViewportSize(PHONE);
  try {
    for (const [id, title, words] of failures) {
      await ui.open();
      await page.getByRole("button", { name: "Sessions" }).click();
      const link = sessionLink(page, id);
      await page.locator(`a.sess[data-session="${id}"][data-state="failed"]`).waitFor();
      await link.locator(".badge-failed", { hasText: "failed" }).waitFor();
      await link.getByText(words).waitFor();
      await link.click();
      await convTitle(page, title).waitFor();
      await page.locator(".conv-title-row .state-text", { hasText: words }).waitFor();
    }
  } finally {
    await page.setViewportSize(DESKTOP);
  }
  await ui.open();
  for (const [id, title, words] of failures) {
    const link = sessionLink(page, id);
    await page.locator(`a.sess[data-session="${id}"][data-state="failed"]`).waitFor();
    await link.getByRole("img", { name: "state: failed" }).waitFor();
    await link.locator(".badge-failed", { hasText: "failed" }).waitFor();
    await link.getByText(words).waitFor();
    // The title bar says it in the same words.
    await link.click();
    await convTitle(page, title).waitFor();
    await page.locator(".conv-title-row .state-text", { hasText: words }).waitFor();
  }
  await sessionLink(page, turn).click();
  await page.locator(".conv-title-row .state-text", { hasText: "last turn failed: disk full" }).waitFor();
  // The error is said once, not in the body and again in the note.
  const reply = page.locator("article.msg-agent").last();
  await reply.getByRole("note").getByText("The turn ended with an error: disk full").waitFor();
  assert.equal((await reply.innerText()).split("disk full").length - 1, 1, await reply.innerText());
  // A turn that goes well afterwards clears the turn's failure.
  await relay.say(turn, "fixed", SLOW);
  await page.locator(`a.sess[data-session="${turn}"][data-state="idle"]`).waitFor();
});

test("list entries show how long ago, the last line and the whole title on hover; the open one keeps its place", async () => {
  const { page, relay } = ui;
  const long = "A very long session title that the list has to cut somewhere near here, surely";
  const a = await relay.createSession({ title: long });
  await relay.say(a, "the parser is done", SLOW);
  const b = await relay.createSession({ title: "Neighbour" });
  await ui.open(`session=${a}`);
  const link = sessionLink(page, a);
  await link.locator(".sess-ago", { hasText: /just now|min ago/ }).waitFor();
  await link.locator(".sess-preview", { hasText: "Agent: echo: the parser is done" }).waitFor();
  assert.match((await link.getAttribute("title")) ?? "", new RegExp(`^${long}`));
  const cut = await link.locator(".sess-title").evaluate((el) => el.scrollWidth > el.clientWidth);
  assert.ok(cut, "the title is cut on screen (and whole in the tooltip)");
  const place = async () =>
    page
      .locator(".session-list a.sess")
      .evaluateAll((els, id) => els.findIndex((e) => (e as HTMLElement).dataset.session === id), a);
  const before = await place();
  // Another session becomes the most recent: the open one stays where it was.
  await relay.say(b, "now I am newest", SLOW);
  await page.locator(`a.sess[data-session="${b}"] .sess-preview`, { hasText: "now I am newest" }).waitFor();
  assert.equal(await place(), before);

  // On a phone the list (opened from its button) shows the same, within the screen.
  await page.setViewportSize(PHONE);
  try {
    await ui.open();
    await page.getByRole("button", { name: "Sessions" }).click();
    await link.locator(".sess-ago", { hasText: /just now|min ago/ }).waitFor();
    await link.locator(".sess-preview", { hasText: "Agent: echo: the parser is done" }).waitFor();
    const box = (await link.boundingBox())!;
    assert.ok(box.x >= 0 && box.x + box.width <= PHONE.width, JSON.stringify(box));
    assert.match((await link.getAttribute("title")) ?? "", new RegExp(`^${long}`));
  } finally {
    await page.setViewportSize(DESKTOP);
  }
});

test("unarchive brings a session back", async () => {
  const { page, relay } = ui;
  const id = await relay.createSession({ title: "Archive me" });
  await ui.open(`session=${id}`);
  await convTitle(page, "Archive me").waitFor();
  await page.getByRole("button", { name: "Archive", exact: true }).click();
  await page
    .getByRole("note")
    .getByText(/This session is archived/)
    .waitFor();
  // No "write the first message" above the note that says it takes none.
  assert.equal(await page.getByText("No messages yet. Write the first one below.").isVisible(), false);
  await page.getByRole("button", { name: "Unarchive", exact: true }).first().click();
  await page.getByLabel("Message", { exact: true }).waitFor();
  assert.equal((await relay.session(id)).archived, undefined);
  await page.getByLabel("Message", { exact: true }).fill("back again");
  await page.getByLabel("Message", { exact: true }).press("Enter");
  await page.locator("article.msg-agent", { hasText: "echo: back again" }).waitFor({ timeout: SLOW });

  // On a phone Archive is under More, and Unarchive is on screen.
  await page.setViewportSize(PHONE);
  try {
    await ui.open(`session=${id}`);
    await convTitle(page, "Archive me").waitFor();
    await page.getByRole("button", { name: "More" }).click();
    await page.getByRole("button", { name: "Archive", exact: true }).click();
    await page
      .getByRole("note")
      .getByText(/This session is archived/)
      .waitFor();
    const unarchive = page.getByRole("button", { name: "Unarchive", exact: true }).first();
    const box = (await unarchive.boundingBox())!;
    assert.ok(
      box.x >= 0 && box.x + box.width <= PHONE.width && box.y >= 0 && box.y + box.height <= PHONE.height,
      JSON.stringify(box),
    );
    await unarchive.click();
    await page.getByLabel("Message", { exact: true }).waitFor();
    assert.equal((await relay.session(id)).archived, undefined);
  } finally {
    await page.setViewportSize(DESKTOP);
  }
});

test("a word from a message or a waiting question finds it, highlighted, a page at a time, and opens it", async () => {
  const { page, relay } = ui;
  const id = await relay.createSession({ title: "Searchable" });
  await relay.say(id, "the wombat migration is ready", SLOW);
  for (let i = 0; i < 30; i++) await relay.say(id, `filler ${i}`, SLOW);
  const asker = await relay.createSession({ title: "Asks about animals" });
  const asked = relay.say(asker, "/ask_user Which aardvark release? | One | Two", SLOW);
  await relay.waitFor(
    async () => JSON.stringify((await relay.api("GET", "/api/inbox")).json).includes("aardvark"),
    SLOW,
  );
  await ui.open();
  // The list's filter matches titles; a word from a message is one click from Search.
  await page.getByLabel("Filter sessions").fill("wombat");
  await page.getByRole("link", { name: "Search messages and questions for “wombat”" }).click();
  const hits = page.getByRole("list", { name: "Search results" });
  await hits.locator("mark", { hasText: "wombat" }).first().waitFor();
  assert.equal(await hits.getByRole("listitem").count(), 2, "the prompt and the echo");
  await page.getByLabel("Filter sessions").fill("");
  await hits.getByRole("link").filter({ hasText: "You" }).click();
  await convTitle(page, "Searchable").waitFor();
  const found = page.locator("article.msg.is-found", { hasText: "the wombat migration is ready" });
  await found.waitFor();
  assert.ok(await found.isVisible(), "scrolled to the message");

  // 60 messages say "filler": 25 a page, then More results.
  await page.locator("#nav-search").click();
  await page.getByLabel("Search messages and questions").fill("filler");
  await page.getByLabel("Search messages and questions").press("Enter");
  await page.getByText("25+ matches for “filler”.").waitFor();
  assert.equal(await hits.getByRole("listitem").count(), 25);
  await page.getByRole("button", { name: "More results" }).click();
  await page.getByText("50+ matches for “filler”.").waitFor();
  await page.getByRole("button", { name: "More results" }).click();
  await page.getByText("60 matches for “filler”.").waitFor();
  assert.equal(await page.getByRole("button", { name: "More results" }).isVisible(), false);

  // On a phone: a word from the waiting question finds it, and the hit opens it to answer.
  await page.setViewportSize(PHONE);
  try {
    await ui.open();
    await page.locator("#nav-search").click();
    await page.getByLabel("Search messages and questions").fill("aardvark");
    await page.getByLabel("Search messages and questions").press("Enter");
    const hit = hits.getByRole("link").filter({ hasText: "Question" });
    await hit.locator("mark", { hasText: "aardvark" }).waitFor();
    assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= PHONE.width);
    await hit.click();
    await convTitle(page, "Asks about animals").waitFor();
    await page
      .getByRole("group", { name: "Question: Which aardvark release?" })
      .getByRole("button", { name: "Two", exact: true })
      .click();
    assert.match((await asked).text, /answer: Two/);
  } finally {
    await page.setViewportSize(DESKTOP);
  }
});

test("a filter shows no waiting session it does not match, even one fetched on its own after the filtered list", async () => {
  const { page, relay } = ui;
  await relay.createSession({ title: "Platypus notes" });
  await ui.open();
  await page.getByLabel("Filter sessions").fill("platypus");
  await sessionLink(page, (await relay.api("GET", "/api/sessions?query=Platypus")).json.sessions[0].id).waitFor();
  // A question raised now is on no loaded page: the page fetches its session on its own.
  const asker = await relay.createSession({ title: "Asks about lemurs" });
  const fetched = page.waitForResponse((r) => r.url().includes(`query=${asker}`), { timeout: SLOW });
  const asked = relay.say(asker, "/ask_user Which lemur? | Ring-tailed | Mouse", SLOW);
  await (await fetched).finished();
  // The page reads that answer and draws the list again in the tasks after it.
  await page.evaluate(() => new Promise((r) => setTimeout(() => setTimeout(() => requestAnimationFrame(r), 0), 0)));
  assert.equal(await sessionLink(page, asker).count(), 0, "the waiting session does not match the filter");
  await page.getByLabel("Filter sessions").fill("");
  await sessionLink(page, asker).waitFor();
  await relay.api("POST", `/api/sessions/${asker}/stop`);
  await asked.catch(() => undefined);
});

test("Ctrl-K switches sessions; Esc stops the running turn", async () => {
  const { page, relay } = ui;
  const target = await relay.createSession({ title: "Switch target" });
  await ui.open();
  await page.keyboard.press("Control+k");
  await page.getByLabel("Go to session").fill("switch targ");
  await page.getByRole("option", { name: /Switch target/ }).waitFor();
  await page.keyboard.press("Enter");
  await convTitle(page, "Switch target").waitFor();
  await page.getByLabel("Message", { exact: true }).fill("/hang");
  await page.getByLabel("Message", { exact: true }).press("Enter");
  await relay.waitFor(async () => (await relay.session(target)).state === "running_turn", SLOW);
  await page.locator(".conv-title-row .state-text", { hasText: "running" }).waitFor();
  await page.keyboard.press("Escape");
  await page.getByRole("note", { name: "Turn stopped" }).waitFor({ timeout: SLOW });
});

test("on a phone Stop is on screen while a turn runs, the header is small, and More holds the rest", async () => {
  const { page, relay } = ui;
  const id = await relay.createSession({ title: "Phone controls with a long title that must not push things off" });
  await page.setViewportSize(PHONE);
  try {
    await ui.open(`session=${id}`);
    await page.getByLabel("Message", { exact: true }).fill("/hang");
    await page.getByLabel("Message", { exact: true }).press("Enter");
    await relay.waitFor(async () => (await relay.session(id)).state === "running_turn", SLOW);
    const stop = page.getByRole("button", { name: "Stop", exact: true });
    await stop.and(page.locator(":enabled")).waitFor();
    const box = (await stop.boundingBox())!;
    assert.ok(
      box.x >= 0 && box.x + box.width <= PHONE.width && box.y >= 0 && box.y + box.height <= PHONE.height,
      JSON.stringify(box),
    );
    const head =
      (await page.locator(".topbar").boundingBox())!.height + (await page.locator(".conv-head").boundingBox())!.height;
    assert.ok(head <= 170, `the header takes ${head} px`);
    assert.ok(
      (await page.evaluate(() => document.documentElement.scrollWidth)) <= PHONE.width,
      "nothing wider than the screen",
    );
    await page.getByRole("button", { name: "More" }).click();
    for (const name of ["Kill session", "Archive", "Delete"]) {
      const b = (await page.getByRole("button", { name, exact: true }).boundingBox())!;
      assert.ok(b.x >= 0 && b.x + b.width <= PHONE.width, `${name} on screen: ${JSON.stringify(b)}`);
    }
    await stop.click();
    await page.getByRole("note", { name: "Turn stopped" }).waitFor({ timeout: SLOW });
    // Another session opens with More folded again and the header small.
    const next = await relay.createSession({ title: "Next one" });
    await page.getByRole("button", { name: "Sessions" }).click();
    await sessionLink(page, next).click();
    await convTitle(page, "Next one").waitFor();
    assert.equal(await page.getByRole("button", { name: "More" }).getAttribute("aria-expanded"), "false");
    assert.equal(await page.getByRole("button", { name: "Kill session", exact: true }).isVisible(), false);
    const small =
      (await page.locator(".topbar").boundingBox())!.height + (await page.locator(".conv-head").boundingBox())!.height;
    assert.ok(small <= 170, `the header takes ${small} px`);
    // The New session form fits too.
    await ui.open("new");
    const model = (await page.locator("#new-model").boundingBox())!;
    assert.ok(model.x + model.width <= PHONE.width, `Model field ${JSON.stringify(model)}`);
    assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= PHONE.width);
  } finally {
    await page.setViewportSize(DESKTOP);
  }
});

for (const [name, viewport] of [
  ["desktop", DESKTOP],
  ["phone", PHONE],
] as const) {
  test(`no literal null or undefined, no ISO time and no emoji pictograph on any page (${name})`, async () => {
    const { page, relay } = ui;
    const id = await relay.createSession({ title: `Pages ${name}` });
    await relay.say(id, "/usage 100 20 0.01\n/reply fine\n/task t1 echo hi", SLOW);
    await relay.api("POST", "/api/schedules", { session: id, title: `tick ${name}`, text: "tick", every_minutes: 60 });
    // A schedule that came due (its line in the conversation) and an agent's schedule call
    // (a tool line whose fields hold times).
    await relay.advance(61 * 60_000);
    await relay.waitFor(async () => (await relay.session(id)).messages.some((m: any) => m.role === "schedule"), SLOW);
    const at = new Date(Date.parse(await relay.advance(0)) + 3_600_000).toISOString();
    await relay.say(
      id,
      `/tool {"action":"schedule","title":"later ${name}","at":"${at}","text":"later"}\n/reply set`,
      SLOW,
    );
    await page.setViewportSize(viewport);
    try {
      for (const hash of ["", `session=${id}`, "inbox", "settings", "search=fine", "schedules", "new"]) {
        await ui.open(hash);
        await page.waitForTimeout(400);
        if (hash === `session=${id}`) {
          // A schedule's line leads with its title and prompt, not the relay's header.
          const due = page.locator(".msg-schedule .compact-text", { hasText: `tick ${name}: tick` });
          await due.waitFor();
          assert.doesNotMatch(await due.innerText(), /^\[relay|automated/);
          const call = page.locator("details.tool-call", { hasText: "schedule" }).last();
          await call.locator("summary").click();
          await call.locator(".tool-fields").first().waitFor();
          // The result's nested schedule reads as fields too, not JSON.
          await call.locator(".tool-fields .tool-fields dt", { hasText: "nextFireAt" }).waitFor();
          assert.doesNotMatch(await call.locator(".tool-fields").first().innerText(), /[{}]/);
        }
        if (hash === "settings") await page.getByRole("group", { name: "Provider Scripted" }).waitFor();
        if (hash === "search=fine")
          await page.getByRole("list", { name: "Search results" }).locator("mark").first().waitFor();
        if (hash === "schedules")
          await page.getByRole("list", { name: "Schedules" }).getByText(`tick ${name}`).waitFor();
        assert.deepEqual(await literalNulls(page), [], `#${hash}`);
        assert.deepEqual(await pictographs(page), [], `#${hash}`);
        const wide = await page.evaluate(() => document.documentElement.scrollWidth);
        assert.ok(wide <= viewport.width, `#${hash} is ${wide} px wide`);
      }
      // The login card too (a new tab holds no token).
      const login = await ui.context.newPage();
      try {
        await login.setViewportSize(viewport);
        await login.goto(relay.url);
        await login.locator("form.login-card").getByLabel("Owner token").waitFor();
        assert.deepEqual(await literalNulls(login), [], "login");
        assert.deepEqual(await pictographs(login), [], "login");
        assert.ok((await login.evaluate(() => document.documentElement.scrollWidth)) <= viewport.width);
      } finally {
        await login.close();
      }
      assert.deepEqual(ui.pageErrors, []);
    } finally {
      await page.setViewportSize(DESKTOP);
    }
  });
}
