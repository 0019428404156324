// Cards say what they approve (contract §10.3): `detail` in GET /api/cards carries the whole
// text a send, create_session or schedule would send, the changes of an update_session, and
// the command, file and diff of a CLI's permission request; every card kind raised for real
// from a running turn (relay_tool in a scripted session, a CLI's request_permission).
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { TestRelay } from "./helpers/relay-process.ts";
import { decide, tool, waitCard } from "./helpers/control-helpers.ts";
import { fakeCliDir } from "./helpers/fake-cli.ts";

let relay: TestRelay;
before(async () => {
  relay = await TestRelay.start({ env: { PATH: `${fakeCliDir()}:${process.env.PATH}` } });
});
after(() => relay.stop());

/** Raises a card from a turn of `caller`, returns it, then denies it and waits the turn out. */
async function cardFor(caller: string, args: Record<string, unknown>): Promise<any> {
  const reply = relay.say(caller, tool(args), 60_000);
  const card = await waitCard(relay, caller);
  const listed = (await relay.api("GET", `/api/cards?session=${caller}`)).json.cards.find((c: any) => c.id === card.id);
  assert.equal((await decide(relay, card.id, "deny")).json.status, "denied");
  await reply;
  return listed;
}

test("send: the whole text to be sent, not only the mode", async () => {
  const caller = await relay.createSession({ title: "Asker", mode: "ask" });
  const target = await relay.createSession({ title: "Demo one" });
  const text = "rm -rf everything please\nand then\nsome more lines";
  const card = await cardFor(caller, { action: "send", relay: "this", session: target, text, wait_seconds: 0 });
  assert.equal(card.action, "send");
  assert.ok(card.detail.endsWith(`]\n${text}`), card.detail);
  assert.match(card.detail, /^\[Prompt from an agent on this relay · session "Asker"/);
});

test("create_session: the first prompt", async () => {
  const caller = await relay.createSession({ title: "Starter" });
  const text = "Build the release notes\nfrom the last 40 commits";
  const card = await cardFor(caller, {
    action: "create_session",
    relay: "this",
    title: "Notes",
    text,
    wait_seconds: 0,
  });
  assert.equal(card.action, "create_session");
  assert.ok(card.detail.endsWith(text), card.detail);
});

test("schedule for another session: the text it would send when due", async () => {
  const caller = await relay.createSession({ title: "Planner", mode: "ask" });
  const target = await relay.createSession({ title: "Nightly" });
  const card = await cardFor(caller, {
    action: "schedule",
    relay: "this",
    session: target,
    title: "nightly run",
    text: "run the nightly checks\nand report",
    at: "2099-01-01T02:00:00Z",
  });
  assert.equal(card.action, "schedule");
  assert.equal(card.detail, "run the nightly checks\nand report");
});

test("update_session: the settings it would change", async () => {
  const owner = await relay.createSession({ title: "Other" });
  const caller = await relay.createSession({ title: "Changer" });
  const card = await cardFor(caller, {
    action: "update_session",
    relay: "this",
    session: owner,
    title: "Renamed",
    mode: "plan",
  });
  assert.equal(card.action, "update_session");
  assert.match(card.detail, /^Mode: plan$/m);
  assert.match(card.detail, /^Title: Renamed$/m);
});

test("a CLI's permission request: the tool, the file and the diff, without its input repeated as JSON", async () => {
  const s = await relay.createSession({ provider: "claude", mode: "ask", title: "Editor" });
  const reply = relay.say(s, "/permission-edit /w/a.txt", 60_000);
  const card = await waitCard(relay, s);
  assert.equal(card.kind, "permission");
  const d: string = card.detail;
  assert.match(d, /^Tool: Edit \/w\/a\.txt$/m);
  assert.match(d, /^Files: \/w\/a\.txt$/m);
  assert.match(d, /^--- \/w\/a\.txt$/m);
  assert.match(d, /^-old line$/m);
  assert.match(d, /^\+new line$/m);
  // Its input is all said above: no JSON repeating it.
  assert.doesNotMatch(d, /^Input:/m);
  await decide(relay, card.id, "deny");
  await reply;

  const cmd = await relay.createSession({ provider: "claude", mode: "ask", title: "Runner" });
  const r2 = relay.say(cmd, "/permission rm -rf build", 60_000);
  const c2 = await waitCard(relay, cmd);
  assert.match(c2.detail, /^Command: rm -rf build$/m);
  // The tool's title is the command itself: the Tool line names the kind instead.
  assert.match(c2.detail, /^Tool: shell command \(execute\)$/m);
  await decide(relay, c2.id, "deny");
  await r2;
});
