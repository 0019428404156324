// The page as an installable web app that reaches the owner (contract §10.3), in real
// Chromium against a real relay: a card's detail folded past 12 lines, and every card kind's
// detail as the owner API gives it; the manifest and the
// service worker; "Notify me" subscribing with the relay's VAPID key; the relay's push to the
// local push service; the worker showing that payload with the card's options as actions;
// and the worker's button handler deciding the card with the action token (no owner token).
// The one leg replaced is Chromium's own push service (FCM), which a test cannot reach: the
// subscription comes from the local push service, and its decrypted payload is handed to the
// worker through DevTools (ServiceWorker.deliverPushMessage), as a push service would.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { startUi, SLOW, type UiKit } from "./helpers/ui-kit.ts";
import { PushService } from "./helpers/push-service.ts";
import { tool, waitCard } from "./helpers/control-helpers.ts";

let ui: UiKit;
let push: PushService;
const LINES = Array.from({ length: 20 }, (_, i) => `line ${i + 1} of the prompt`).join("\n");

before(async () => {
  push = await PushService.start();
  const sub = push.subscribe();
  // Chromium's pushManager.subscribe would register with FCM: the local push service stands in.
  const initScript = `(() => {
    if (typeof PushManager === "undefined") return;
    const SUB = ${JSON.stringify(sub)};
    PushManager.prototype.subscribe = async function (o) {
      window.__subscribedWith = { userVisibleOnly: o.userVisibleOnly, key: String(o.applicationServerKey) };
      return { endpoint: SUB.endpoint, options: {}, toJSON: () => SUB, unsubscribe: async () => true };
    };
    PushManager.prototype.getSubscription = async function () { return null; };
  })();`;
  ui = await startUi({ permissions: ["notifications"], initScript });
});
after(async () => {
  await ui.close();
  await push.close();
});

test("the manifest, icon and service worker are served from /", async () => {
  const m = await fetch(`${ui.relay.url}/manifest.webmanifest`);
  assert.equal(m.status, 200);
  assert.match(m.headers.get("content-type") ?? "", /application\/manifest\+json/);
  const manifest = await m.json();
  assert.equal(manifest.start_url, "/");
  assert.equal(manifest.display, "standalone");
  assert.equal((await fetch(`${ui.relay.url}${manifest.icons[0].src}`)).status, 200);
  const sw = await fetch(`${ui.relay.url}/sw.js`);
  assert.equal(sw.status, 200);
  assert.match(await sw.text(), /addEventListener\("push"/);
});

test("a card's detail shows on the page, folded past 12 lines", async () => {
  const { relay, page } = ui;
  const caller = await relay.createSession({ title: "Asker", mode: "ask" });
  const target = await relay.createSession({ title: "Demo one" });
  const reply = relay.say(
    caller,
    tool({ action: "send", relay: "this", session: target, text: LINES, wait_seconds: 0 }),
    SLOW,
  );
  const card = await waitCard(relay, caller);
  await ui.open(`session=${caller}`);
  const pre = page.locator(".card-approval .card-detail-text");
  await pre.waitFor();
  assert.equal((await pre.textContent())!.split("\n").length, 12);
  const more = page.getByRole("button", { name: /^Show all \d+ lines$/ });
  await more.click();
  assert.ok((await pre.textContent())!.endsWith("line 20 of the prompt"));
  await relay.api("POST", `/api/cards/${card.id}`, { decision: "deny" });
  await reply;
});

test("every card kind's detail shows on the page as the owner API gives it: create_session, schedule, update_session", async () => {
  const { relay, page } = ui;
  const other = await relay.createSession({ title: "Nightly" });
  const kinds: [string, Record<string, unknown>, RegExp][] = [
    [
      "create_session",
      {
        action: "create_session",
        relay: "this",
        title: "Notes",
        text: "Build the notes\nfrom 40 commits",
        wait_seconds: 0,
      },
      /^Build the notes\nfrom 40 commits$/m,
    ],
    [
      "schedule",
      {
        action: "schedule",
        relay: "this",
        session: other,
        title: "nightly run",
        text: "run the nightly checks\nand report",
        at: "2099-01-01T02:00:00Z",
      },
      /^run the nightly checks\nand report$/,
    ],
    [
      "update_session",
      { action: "update_session", relay: "this", session: other, title: "Renamed", mode: "plan" },
      /^Mode: plan$/m,
    ],
  ];
  for (const [action, args, words] of kinds) {
    const caller = await relay.createSession({ title: `Caller ${action}`, mode: "ask" });
    const reply = relay.say(caller, tool(args), SLOW);
    const card = await waitCard(relay, caller);
    const listed = (await relay.api("GET", `/api/cards?session=${caller}`)).json.cards.find(
      (c: any) => c.id === card.id,
    );
    assert.equal(listed.action, action);
    assert.match(listed.detail, words);
    await ui.open(`session=${caller}`);
    const pre = page.locator(".card-approval .card-detail-text");
    await pre.waitFor();
    assert.equal(await pre.textContent(), listed.detail, action);
    await relay.api("POST", `/api/cards/${card.id}`, { decision: "deny" });
    await reply;
  }
  assert.deepEqual(ui.pageErrors, []);
});

test("Notify me subscribes with the relay's key; the worker shows the relay's push with the card's options and its button decides the card once", async () => {
  const { relay, page, context } = ui;
  await ui.open();
  const { json: key } = await relay.api("GET", "/api/push/key");
  await page.locator("#nav-notify").click();
  await page.locator('#nav-notify[aria-pressed="true"]').waitFor();
  const subscribed = await page.waitForFunction(() => (window as any).__subscribedWith).then((h) => h.jsonValue());
  assert.deepEqual(subscribed, { userVisibleOnly: true, key: key.key });
  // The worker is the page's, at scope /.
  assert.equal(await page.evaluate(async () => (await navigator.serviceWorker.ready).scope), `${relay.url}/`);

  const s = await relay.createSession({ title: "Starter" });
  const reply = relay.say(
    s,
    tool({ action: "create_session", relay: "this", title: "Child", text: "tidy the changelog", wait_seconds: 0 }),
    SLOW,
  );
  const card = await waitCard(relay, s);
  const [msg] = await push.received(1);
  assert.equal(msg.payload.card.id, card.id);

  // The push service hands the payload to the browser's worker.
  const cdp = await context.newCDPSession(page);
  const registration = new Promise<string>((resolve) =>
    cdp.on("ServiceWorker.workerRegistrationUpdated", (e: any) => {
      const r = e.registrations.find((x: any) => x.scopeURL === `${relay.url}/` && !x.isDeleted);
      if (r) resolve(r.registrationId);
    }),
  );
  await cdp.send("ServiceWorker.enable");
  await cdp.send("ServiceWorker.deliverPushMessage", {
    origin: `${relay.url}/`,
    registrationId: await registration,
    data: JSON.stringify(msg.payload),
  });
  const shown = await page
    .waitForFunction(
      async () => {
        const list = await (await navigator.serviceWorker.ready).getNotifications();
        return list.length
          ? list.map((n) => ({
              title: n.title,
              body: n.body,
              tag: n.tag,
              actions: (n as any).actions.map((a: any) => [a.action, a.title]),
              data: n.data,
            }))
          : null;
      },
      undefined,
      { polling: 100 },
    )
    .then((h) => h.jsonValue());
  assert.ok(shown);
  assert.equal(shown.length, 1);
  assert.equal(shown[0].title, card.text);
  assert.match(shown[0].body, /tidy the changelog/);
  assert.equal(shown[0].tag, `card-${card.id}`);
  assert.deepEqual(shown[0].actions, [
    ["allow", "Allow"],
    ["deny", "Deny"],
  ]);

  // The worker's notificationclick handler, called as it calls it, with the Allow button.
  const act = (action: string) =>
    page.evaluate(
      async ([data, action]) => {
        const m = await import("/app/push-actions.js" as string);
        return m.actOn(data, action);
      },
      [shown![0].data, action] as const,
    );
  // Its link opens on the origin the page is served from (a proxy's, on a phone).
  assert.equal(
    await page.evaluate(
      async ([url]) => (await import("/app/push-actions.js" as string)).onThisOrigin(url, "https://oar.example.ts.net"),
      [shown[0].data.url] as const,
    ),
    `https://oar.example.ts.net/#session=${s}`,
  );
  assert.deepEqual(await act("allow"), { ok: true, status: "allowed" });
  const again = await act("deny");
  assert.equal(again.ok, false);
  assert.match(again.error, /already acted on/);
  assert.equal((await relay.session(s)).cards.find((c: any) => c.id === card.id).status, "allowed");
  await reply;
  assert.deepEqual(ui.pageErrors, []);
});
