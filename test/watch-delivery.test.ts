// How events arrive (seed §9, contract §4.6): the event-line format, the 30-second
// gathering window, urgent events at once, a watcher in a turn gets one message when it
// ends, an event several subscriptions receive goes out once, no echo of the watcher's
// own waited prompts, task events, match.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { TestRelay, type McpSession } from "./helpers/relay-process.ts";
import { FIRST, SLOW, eventMessages, idle, say, toolInTurn, waitEvents } from "./helpers/watch.ts";

let relay: TestRelay;
let watcher: string;
let a: string;
let b: string;
let mcp: McpSession;

before(async () => {
  relay = await TestRelay.start();
  watcher = await relay.createSession({ title: "Desk" });
  a = await relay.createSession({ title: "Review: server/" });
  b = await relay.createSession({ title: "Review: web/" });
  mcp = await relay.mcp(watcher);
  const first = await toolInTurn(relay, watcher, {
    action: "subscribe",
    sessions: [a, b],
    events: ["turn_end", "error", "question_asked"],
  });
  assert.equal(first.result.ok, true, JSON.stringify(first.result));
});
after(() => relay.stop());

const count = async () => (await eventMessages(relay, watcher)).length;

test("events within 30 seconds arrive as one message, in the event-line format", async () => {
  await say(relay, a, "Found 4 places without input checks");
  await relay.advance(29_000);
  assert.equal(await count(), 0, "the window is still open");
  await say(relay, b, "second");
  await relay.advance(1_000);
  const [msg] = await waitEvents(relay, watcher, 1);
  assert.equal(
    msg,
    [
      FIRST,
      `[relay event] session "Review: server/" (${a}): turn_end (done) "echo: Found 4 places without input checks"`,
      `[relay event] session "Review: web/" (${b}): turn_end (done) "echo: second"`,
    ].join("\n"),
  );
  const s = await relay.session(watcher);
  const m = s.messages.find((x: any) => x.role === "event");
  assert.equal(m.from, undefined, "never a message of the owner or an agent");
});

test("an urgent event closes the window at once and goes out with it", async () => {
  const before = await count();
  await say(relay, a, "plain");
  await say(relay, b, "/error the build broke");
  const all = await waitEvents(relay, watcher, before + 1);
  assert.equal(all.length, before + 1);
  assert.equal(
    all[before],
    [
      FIRST,
      `[relay event] session "Review: server/" (${a}): turn_end (done) "echo: plain"`,
      `[relay event] session "Review: web/" (${b}): error "the build broke"`,
    ].join("\n"),
  );
  await relay.advance(30_000);
  assert.equal(await count(), before + 1, "nothing left for the window");
});

test("a watcher in a turn gets one message when that turn ends", async () => {
  const before = await count();
  const r = await relay.api("POST", `/api/sessions/${watcher}/messages`, { text: "/hang" });
  assert.equal(r.status, 201);
  await relay.waitFor(async () => (await relay.session(watcher)).state === "running_turn", SLOW);
  await say(relay, a, "one");
  await relay.advance(30_000);
  await say(relay, b, "/error two");
  await relay.api("POST", `/api/sessions/${a}/messages`, { text: "/ask_user Ship it? | yes | no" });
  await relay.waitFor(async () => (await relay.api("GET", "/api/inbox")).json.questions.length > 0, SLOW);
  await relay.advance(60_000);
  assert.equal(await count(), before, "held while the watcher's turn runs");
  await relay.api("POST", `/api/sessions/${watcher}/stop`);
  const all = await waitEvents(relay, watcher, before + 1);
  assert.equal(all.length, before + 1);
  const lines = all[before].split("\n");
  assert.equal(lines[0], FIRST);
  assert.equal(lines.length, 4, all[before]);
  assert.match(lines[1], /turn_end \(done\) "echo: one"$/);
  assert.match(lines[2], /: error "two"$/);
  assert.match(
    lines[3],
    new RegExp(
      `^\\[relay event\\] session "Review: server/" \\(${a}\\): question_asked q_[a-z0-9]+ "Ship it\\?" \\[yes \\| no\\]$`,
    ),
  );
  const q = (await relay.api("GET", "/api/inbox")).json.questions[0];
  await relay.api("POST", `/api/questions/${q.id}`, { choice: "yes" });
  await idle(relay, a);
  await relay.advance(30_000);
  await idle(relay, watcher);
});

test("an event several subscriptions receive goes out once, when the first lets it through", async () => {
  const digest = await mcp.call({ action: "subscribe", sessions: [a], events: ["turn_end"], digest_minutes: 30 });
  const before = await count();
  await say(relay, a, "both receive this");
  await relay.advance(30_000);
  const all = await waitEvents(relay, watcher, before + 1);
  assert.equal(all.length, before + 1);
  assert.equal(all[before].split("\n").filter((l) => l.includes("both receive this")).length, 1);
  const listed = (await mcp.call({ action: "list_subscriptions" })).subscriptions.find(
    (s: any) => s.id === digest.subscription.id,
  );
  assert.equal(listed.heldCount, 0);
  await relay.advance(31 * 60_000);
  assert.equal(await count(), before + 1, "the digest does not bring it again");
  await mcp.call({ action: "unsubscribe", subscription_id: digest.subscription.id });
});

test("no echo of the watcher's own waited prompts; a prompt it did not wait for wakes it", async () => {
  const before = await count();
  // Waited for: the reply came with send, its turn_end does not wake the watcher again.
  const waited = await toolInTurn(relay, watcher, { action: "send", relay: "this", session: a, text: "waited" });
  assert.equal(waited.result.status, "done");
  await relay.advance(30_000);
  assert.equal(await count(), before);

  // Its errors are still delivered.
  const failed = await toolInTurn(relay, watcher, {
    action: "send",
    relay: "this",
    session: b,
    text: "/error bad input",
  });
  assert.equal(failed.result.status, "error");
  let all = await waitEvents(relay, watcher, before + 1);
  assert.match(all[before], /: error "bad input"$/);

  // Not waited for (wait_seconds 0, no wait): it wakes as before.
  const fire = await toolInTurn(relay, watcher, {
    action: "send",
    relay: "this",
    session: a,
    text: "/sleep 300\nfire and forget",
    wait_seconds: 0,
  });
  assert.equal(fire.result.status, "running");
  await idle(relay, a);
  await relay.advance(30_000);
  all = await waitEvents(relay, watcher, before + 2);
  assert.match(all[before + 1], /turn_end \(done\) "echo: .*fire and forget"$/);

  // A later wait that gets the reply counts as waiting.
  const later = await toolInTurn(relay, watcher, {
    action: "send",
    relay: "this",
    session: b,
    text: "/sleep 1500\nlater",
    wait_seconds: 0,
  });
  const w = await mcp.call({ action: "wait", relay: "this", session: b, message_id: later.result.message_id });
  assert.equal(w.status, "done");
  await relay.advance(30_000);
  await idle(relay, watcher);
  assert.equal(await count(), before + 2);

  // A turn_end that ends a once subscription wakes it even when waited for.
  await mcp.call({ action: "subscribe", sessions: [a], events: ["turn_end"], once: true });
  await toolInTurn(relay, watcher, { action: "send", relay: "this", session: a, text: "once" });
  await relay.advance(30_000);
  all = await waitEvents(relay, watcher, before + 3);
  assert.match(
    all[before + 2],
    /turn_end \(done\) "echo: \[Prompt from an agent on this relay · session 'Desk' · scripted-1 · acting for the user\] once"$/,
  );
});

test("task events: failures and finished subagents by default, every start and end by name", async () => {
  const w2 = await relay.createSession({ title: "Task watcher" });
  const c = await relay.createSession({ title: "Builder" });
  await toolInTurn(relay, w2, { action: "subscribe", sessions: [c] });
  const m2 = await relay.mcp(w2);
  await say(relay, c, "/task ok true\n/task bad sh -c 'exit 3'\n/subagent helper 10");
  await relay.waitFor(async () => {
    const s = await relay.session(c);
    return s.tasks.length === 3 && s.tasks.every((t: any) => t.status !== "running");
  }, SLOW);
  await relay.advance(30_000);
  const [msg] = await waitEvents(relay, w2, 1);
  const lines = msg.split("\n").slice(1);
  const has = (re: RegExp) => lines.some((l) => re.test(l));
  assert.ok(has(/: task_failed "bad" \(local_bash, exit 3\)$/), msg);
  assert.ok(has(/: subagent_finished "helper" \(subagent, exit 0\)$/), msg);
  assert.ok(!has(/"ok"/), "a shell command that ends normally does not wake by default");

  await m2.call({ action: "unsubscribe", subscription_id: "all" });
  await m2.call({ action: "subscribe", sessions: [c], events: ["task_started", "task_finished"] });
  await say(relay, c, "/task ok2 true");
  await relay.waitFor(
    async () =>
      (await relay.session(c)).tasks.filter((t: any) => t.description === "ok2" && t.status !== "running").length === 1,
    SLOW,
  );
  await relay.advance(30_000);
  const all = await waitEvents(relay, w2, 2);
  assert.match(all[1], /: task_started "ok2" \(local_bash\)\n.*: task_finished "ok2" \(local_bash, exit 0\)$/);
});

test("question_answered by name is urgent: it comes at once, never held by a digest", async () => {
  const w4 = await relay.createSession({ title: "Answer watcher" });
  const c = await relay.createSession({ title: "Asker" });
  await toolInTurn(relay, w4, {
    action: "subscribe",
    sessions: [c],
    events: ["question_answered"],
    digest_minutes: 60,
  });
  await relay.api("POST", `/api/sessions/${c}/messages`, { text: "/ask_user Which branch? | main | dev" });
  const q = await relay.waitFor(
    async () => (await relay.api("GET", "/api/inbox")).json.questions.find((x: any) => x.session === c),
    SLOW,
  );
  await relay.api("POST", `/api/questions/${q.id}`, { choice: "dev" });
  const all = await waitEvents(relay, w4, 1);
  assert.equal(all[0], `${FIRST}\n[relay event] session "Asker" (${c}): question_answered ${q.id} "dev"`);
});

test("match keeps only events whose line contains the text", async () => {
  const w3 = await relay.createSession({ title: "Match watcher" });
  const c = await relay.createSession({ title: "Deployer" });
  await toolInTurn(relay, w3, { action: "subscribe", sessions: [c], events: ["turn_end"], match: "DEPLOYED" });
  await say(relay, c, "nothing to see");
  await say(relay, c, "/reply deployed to staging");
  await relay.advance(30_000);
  const all = await waitEvents(relay, w3, 1);
  assert.equal(all.length, 1);
  assert.equal(all[0].split("\n").length, 2);
  assert.match(all[0], /turn_end \(done\) "deployed to staging/);
});
