// A group's budget follows its work across paired relays (contract §10.4): what a turn run
// on the other relay for a session of the group reported comes back in the peer answer and
// counts for the group here, once however often it is read; the group's next turn here then
// waits. The other relay counts the turn for its own budgets (its relay budget).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { type PairedRelays, pairedRelays } from "./helpers/pairing.ts";

let relays: PairedRelays;
before(async () => {
  relays = await pairedRelays({ conv: "Planner", target: "Worker", mention: "work with @bbox" });
});
after(() => relays?.stop());

test("a group budget counts a worker's turns on a paired relay, once, and then holds the group's next turn here", async () => {
  const { a, b, conv, agent, target } = relays;
  const group = (await a.api("POST", "/api/groups", { name: "Team" })).json;
  assert.equal((await a.api("POST", `/api/groups/${group.id}/sessions`, { session: conv })).status, 200);
  const set = await a.api("PATCH", "/api/settings", {
    budgets: [{ id: "team", scope: "group", target: group.id, period: "day", usd: 0.5 }],
  });
  assert.equal(set.status, 200, JSON.stringify(set.json));
  assert.equal(
    (await b.api("PATCH", "/api/settings", { budgets: [{ id: "box", scope: "relay", period: "month", usd: 100 }] }))
      .status,
    200,
  );

  const first = await agent.call({
    action: "send",
    relay: "bbox",
    session: target,
    text: "/usage 1000 500 0.40\n/reply w1",
    wait_seconds: 30,
  });
  assert.equal(first.status, "done", JSON.stringify(first));
  const spent = async () => (await a.api("GET", "/api/usage")).json.budgets.find((x: any) => x.id === "team");
  assert.equal((await spent()).spentUsd, 0.4);
  // Read again (wait on the same message): the same remote turn, counted once.
  const again = await agent.call({
    action: "wait",
    relay: "bbox",
    session: target,
    message_id: first.message_id,
    wait_seconds: 0,
  });
  assert.equal(again.status, "done", JSON.stringify(again));
  assert.equal((await spent()).spentUsd, 0.4);
  // The relay that ran it counts it for its own relay budget.
  assert.equal((await b.api("GET", "/api/usage")).json.budgets[0].spentUsd, 0.4);

  // A running turn is never cut off: the prompt of the group's session goes on past the limit.
  assert.equal(
    (
      await agent.call({
        action: "send",
        relay: "bbox",
        session: target,
        text: "/usage 1000 500 0.40\n/reply w2",
        wait_seconds: 30,
      })
    ).status,
    "done",
  );
  assert.equal((await spent()).spentUsd, 0.8);
  assert.equal((await spent()).remainingUsd, 0);

  // The group's next turn here waits for the owner.
  const m = (await a.api("POST", `/api/sessions/${conv}/messages`, { text: "/reply next" })).json.message_id;
  const cards = await a.waitFor(async () => {
    const c = (await a.api("GET", `/api/cards?session=${conv}`)).json.cards.filter((x: any) => x.kind === "budget");
    return c.length && c;
  });
  assert.equal(cards[0].budget, "team");
  assert.match(cards[0].text, /Budget "team" \(group "Team", per day\) reached its limit: \$0\.80 of \$0\.50/);
  const watcher = await a.createSession({ title: "Watcher" });
  const held = await (await a.mcp(watcher)).call({
    action: "wait",
    relay: "this",
    session: conv,
    message_id: m,
    wait_seconds: 0,
  });
  assert.deepEqual(held.heldForBudget, { budget: "team", spentUsd: 0.8, limitUsd: 0.5 });

  // The other relay's own budget holds a prompt there: the calling agent hears it at once,
  // the fields as that relay gave them.
  assert.equal(
    (await b.api("PATCH", "/api/settings", { budgets: [{ id: "box", scope: "relay", period: "month", usd: 0.8 }] }))
      .status,
    200,
  );
  const there = await agent.call({
    action: "send",
    relay: "bbox",
    session: target,
    text: "/reply w3",
    wait_seconds: 300,
  });
  assert.equal(there.status, "queued", JSON.stringify(there));
  assert.deepEqual(there.heldForBudget, { budget: "box", spentUsd: 0.8, limitUsd: 0.8 });
  assert.match(there.note, /The owner was asked/);
});
