// Budgets in real Chromium (contract §10.4): a budget is set from Settings → Usage (a bad one
// is refused with the field named, nothing changed), the Usage view shows spent of the limit
// and the held turn, the held turn's budget card raises the limit with an amount or lets the
// turn run once, and the 80 % notice is in the Inbox until dismissed.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startUi, convTitle, type UiKit } from "./helpers/ui-kit.ts";

let ui: UiKit;
before(async () => {
  ui = await startUi();
});
after(() => ui?.close());

const TURN = (name: string) => `/usage 1000 500 0.40\n/reply ${name}`;

test("set a budget on the page, see it fill, raise it and allow once from its card, dismiss the notice", async () => {
  const { page, relay } = ui;
  await ui.open("settings");
  const form = page.getByRole("form", { name: "New budget" });
  await form.getByLabel("Budget period").selectOption("day");
  await form.getByLabel("Limit in USD").fill("1");
  await form.getByRole("button", { name: "Add budget" }).click();
  const row = page.getByRole("listitem").filter({ hasText: "this relay · per day" });
  await row.filter({ hasText: "$0.00 of $1.00" }).waitFor();
  const [budget] = (await relay.api("GET", "/api/settings")).json.budgets;
  assert.deepEqual(
    { ...budget, id: "" },
    { id: "", scope: "relay", target: null, period: "day", usd: 1, tokens: null },
  );

  // Refused, the field named; nothing changed.
  await form.getByLabel("Limit in USD").fill("0");
  await form.getByRole("button", { name: "Add budget" }).click();
  await page.getByRole("alert").filter({ hasText: "budgets[1].usd" }).waitFor();
  assert.equal((await relay.api("GET", "/api/settings")).json.budgets.length, 1);

  const s = await relay.createSession({ title: "Spender" });
  for (const n of ["one", "two", "three"]) assert.equal((await relay.say(s, TURN(n))).text, n);
  const m4 = (await relay.api("POST", `/api/sessions/${s}/messages`, { text: TURN("four") })).json.message_id;
  await relay.waitFor(async () => (await relay.api("GET", "/api/usage")).json.budgets[0].heldTurns === 1);

  await ui.open("settings");
  await page.getByRole("listitem").filter({ hasText: "$1.20 of $1.00" }).filter({ hasText: "1 held turn" }).waitFor();

  // The card in the conversation: raise to $2 with the amount field.
  await ui.open(`session=${s}`);
  await convTitle(page, "Spender").waitFor();
  const card = page.getByRole("group", { name: `Budget reached: ${budget.id}` });
  await card.getByText(/reached its limit: \$1\.20 of \$1\.00 spent today/).waitFor();
  await card.getByLabel("New limit in USD").fill("2");
  await card.getByRole("button", { name: "Raise limit" }).click();
  await relay.waitFor(async () =>
    (await relay.session(s)).messages.some((m: any) => m.role === "agent" && m.text === "four"),
  );
  assert.equal((await relay.api("GET", "/api/settings")).json.budgets[0].usd, 2);
  void m4;

  // Spent $2.00 after the next: the one after waits; Allow once from the Inbox runs it.
  assert.equal((await relay.say(s, TURN("five"))).text, "five");
  await relay.api("POST", `/api/sessions/${s}/messages`, { text: TURN("six") });
  await ui.open("inbox");
  const again = page.getByRole("group", { name: `Budget reached: ${budget.id}` });
  await again.getByText(/\$2\.00 of \$2\.00/).waitFor();
  await again.getByRole("button", { name: "Allow once" }).click();
  await relay.waitFor(async () =>
    (await relay.session(s)).messages.some((m: any) => m.role === "agent" && m.text === "six"),
  );
  await again.waitFor({ state: "detached" });

  // The 80 % notice of today, dismissed from the Inbox.
  const notice = page.getByRole("group", { name: `Budget notice: ${budget.id}` });
  await notice.getByText(/\(80 %\)/).waitFor();
  await notice.getByRole("button", { name: "Dismiss" }).click();
  await notice.waitFor({ state: "detached" });
  assert.equal((await relay.api("GET", "/api/inbox")).json.notices.length, 0);
  assert.deepEqual(ui.pageErrors, []);
});
