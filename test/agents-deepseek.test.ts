// DeepSeek on our own agent (src/providers/openai-agent/) against a local server speaking
// DeepSeek's wire format (test/helpers/fake-openai.ts): a real relay, the real agent process as
// the worker, a scripted session on the other end of relay_tool.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import {
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import Database from "better-sqlite3";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TestRelay } from "./helpers/relay-process.ts";
import { agentTool, workerPids } from "./helpers/core-helpers.ts";
import { FakeOpenAI, errors, lastUserText, toolResults, type ChatCall } from "./helpers/fake-openai.ts";

let relay: TestRelay;
let fake: FakeOpenAI;
let folder: string;

before(async () => {
  fake = await FakeOpenAI.start({ apiKey: "ds-key", models: ["deepseek-chat", "deepseek-reasoner"] });
  relay = await TestRelay.start({ settings: { deepseekApiKey: "ds-key", deepseekBaseUrl: fake.baseUrl } });
  folder = mkdtempSync(join(tmpdir(), "oar-ds-"));
});
after(async () => {
  // A failed start leaves relay unset; the fake server must close either way or the file never ends.
  await relay?.stop();
  await fake?.close();
});

async function deepseekSession(title = "DeepSeek", extra: Record<string, unknown> = {}): Promise<string> {
  return relay.createSession({ provider: "deepseek", cwd: folder, title, ...extra });
}

/** The reply's meta as the relay stored it (messages.meta_json): activity, usage. */
function storedMeta(messageId: string): any {
  const db = new Database(join(relay.dataDir, "oar.db"), { readonly: true, fileMustExist: true });
  try {
    const row = db.prepare("SELECT meta_json FROM messages WHERE id = ?").get(messageId) as
      | { meta_json: string }
      | undefined;
    return JSON.parse(row?.meta_json ?? "null");
  } finally {
    db.close();
  }
}

test("relay_info: DeepSeek's models come from its models endpoint; a refused key makes it unavailable with a reason", async () => {
  const observer = await relay.mcp(await relay.createSession({ title: "observer" }));
  const info = await observer.call({ action: "relay_info", relay: "this" });
  const ds = info.providers.find((p: any) => p.id === "deepseek");
  assert.equal(ds.available, true, JSON.stringify(ds));
  assert.deepEqual(ds.models, ["deepseek-chat", "deepseek-reasoner"]);
  assert.equal(ds.defaultModel, "deepseek-chat");
  assert.ok(fake.requests.some((r) => r.path === "/v1/models"));

  await relay.api("PATCH", "/api/settings", { deepseekApiKey: "wrong-key" });
  try {
    const refused = (await observer.call({ action: "relay_info", relay: "this" })).providers.find(
      (p: any) => p.id === "deepseek",
    );
    assert.equal(refused.available, false);
    assert.match(refused.reason, /DeepSeek refused the API key \(401\)/);
  } finally {
    await relay.api("PATCH", "/api/settings", { deepseekApiKey: "ds-key" });
  }
});

test("an owner's prompt: the agent reads a file, edits it, runs a background task and asks a scripted session through relay_tool", async () => {
  writeFileSync(join(folder, "notes.txt"), "hello\nsecond line\n");
  const helper = await relay.createSession({ title: "Helper" });
  const ds = await deepseekSession("Worker");
  fake.reset();
  let taskId = "";
  fake.setScript((call: ChatCall) => {
    const results = toolResults(call);
    switch (results.length) {
      case 0:
        return {
          reasoning: "I should read the notes first.",
          toolCalls: [{ name: "read_file", arguments: { path: "notes.txt" } }],
        };
      case 1:
        return {
          toolCalls: [
            { name: "edit_file", arguments: { path: "notes.txt", old_string: "hello", new_string: "hello world" } },
          ],
        };
      case 2:
        return {
          toolCalls: [
            {
              name: "run_command",
              arguments: { command: "echo task-says-hi; echo second", background: true, description: "greeting job" },
            },
          ],
        };
      case 3:
        taskId = /background task (\S+)/.exec(results[2].text)?.[1] ?? "";
        return {
          toolCalls: [
            {
              name: "relay_tool",
              arguments: { action: "send", relay: "this", session: helper, text: "/reply pong-from-helper" },
            },
          ],
        };
      default: {
        const sent = JSON.parse(results[3].text);
        return { text: `Done. The helper said: ${sent.reply?.text}` };
      }
    }
  });
  const reply = await relay.say(ds, "Please update notes.txt and check with the helper.", 120_000);
  assert.equal(reply.error, undefined, JSON.stringify(reply));
  assert.equal(reply.model, "deepseek-chat", "a new session starts on the first model the endpoint lists");
  assert.match(reply.text, /The helper said: pong-from-helper/);
  assert.equal(readFileSync(join(folder, "notes.txt"), "utf8"), "hello world\nsecond line\n");

  // What the model was given back: the file's text, the edit, the task and the helper's answer.
  const last = fake.calls.at(-1)!;
  const results = toolResults(last);
  assert.deepEqual(
    results.map((r) => r.name),
    ["read_file", "edit_file", "run_command", "relay_tool"],
  );
  assert.match(results[0].text, /hello\nsecond line/);
  assert.match(results[1].text, /Edited notes\.txt/);
  assert.ok(fake.calls[0].tools.includes("relay_tool"), `tools offered: ${fake.calls[0].tools}`);
  // DeepSeek sessions always think; this turn's thinking goes back with its tool loop.
  assert.deepEqual(fake.calls[0].body.thinking, { type: "enabled" });
  assert.equal(
    fake.calls[1].messages.find((m: any) => m.role === "assistant")?.reasoning_content,
    "I should read the notes first.",
  );

  // What the agent did is kept with the reply: its thinking, the edit's diff, the relay_tool call, the usage and cost.
  const meta = storedMeta(reply.id);
  const edit = meta.activity.find((a: any) => a.kind === "tool" && a.toolKind === "edit");
  assert.equal(edit.status, "completed");
  assert.deepEqual(edit.diffs, [
    { path: join(folder, "notes.txt"), oldText: "hello\nsecond line\n", newText: "hello world\nsecond line\n" },
  ]);
  assert.ok(
    meta.activity.some((a: any) => a.kind === "thought" && /read the notes first/.test(a.text)),
    JSON.stringify(meta.activity),
  );
  assert.ok(meta.activity.some((a: any) => a.kind === "tool" && a.toolKind === "execute" && a.status === "completed"));
  assert.ok(meta.activity.some((a: any) => a.kind === "tool" && /relay_tool: send/.test(a.title)));
  assert.ok(meta.usage.inputTokens > 0 && meta.usage.outputTokens > 0, JSON.stringify(meta.usage));
  // DeepSeek's price table: this turn's tokens at deepseek-chat's prices.
  assert.ok(meta.usage.costUsd > 0 && meta.usage.costUsd < 0.01, JSON.stringify(meta.usage));

  // The background task is the relay's: read_task_output sees its output and end.
  assert.ok(taskId, results[2].text);
  const observer = await relay.mcp(helper);
  const out = await relay.waitFor(async () => {
    const r = await observer.call({ action: "read_task_output", relay: "this", session: ds, task_id: taskId });
    return r.ok && r.task.status !== "running" ? r : null;
  });
  assert.equal(out.task.status, "completed");
  // relay_tool usage: DeepSeek's reported tokens and cost this month.
  const u = (await observer.call({ action: "usage", relay: "this" })).providers.find((p: any) => p.id === "deepseek");
  assert.equal(u.status, "tracked", JSON.stringify(u));
  assert.deepEqual(
    u.meters.map((m: any) => m.name),
    ["cost reported this month", "tokens this month"],
  );
  assert.ok(u.meters[1].used >= meta.usage.inputTokens + meta.usage.outputTokens);
  assert.equal(out.task.description, "greeting job");
  assert.match(JSON.stringify(out), /task-says-hi/);
});

test("Stop ends a streaming reply at once; the same agent process answers the next prompt", async () => {
  const ds = await deepseekSession("Slow");
  fake.reset();
  fake.setScript((call) =>
    /slow/.test(lastUserText(call)) ? { text: "word ".repeat(400), chunkDelayMs: 100 } : { text: "quick answer" },
  );
  await relay.api("POST", `/api/sessions/${ds}/messages`, { text: "a slow answer please" });
  await relay.waitFor(async () => ((await relay.session(ds)).inFlight?.text ?? "").length > 20);
  const pids = workerPids(relay);
  assert.equal((await relay.api("POST", `/api/sessions/${ds}/stop`)).status, 200);
  const stopped = await relay.waitFor(async () => {
    const s = await relay.session(ds);
    return s.state === "idle" ? s.messages.filter((m: any) => m.role === "agent").at(-1) : null;
  });
  assert.equal(stopped.error, undefined);
  assert.ok(stopped.text.length < "word ".repeat(400).length, "the reply was cut off");
  const next = await relay.say(ds, "and now?", 60_000);
  assert.equal(next.text, "quick answer");
  assert.ok(
    workerPids(relay).every((p) => pids.includes(p)),
    "the agent answered the cancel itself (not killed and restarted)",
  );
});

test("429 then success is retried (honouring retry-after); 401 and 402 end the turn with words", async () => {
  const ds = await deepseekSession("Errors");
  fake.reset();
  fake.queue(errors.rateLimited(0), errors.serverError(), { text: "after the retries" });
  const ok = await relay.say(ds, "hello", 60_000);
  assert.equal(ok.text, "after the retries");
  assert.equal(fake.calls.length, 3);

  fake.queue({ error: { status: 402, message: "Insufficient Balance", type: "unknown_error" } });
  const broke = await relay.say(ds, "hello again", 60_000);
  assert.match(broke.error, /DeepSeek says the account's balance is exhausted \(402: Insufficient Balance\)/);
  assert.match(broke.error, /top up the account/);

  // A session whose worker starts after the key changed (a relay with that key set would refuse
  // to create it once its probe got the 401).
  const other = await deepseekSession("Bad key");
  await relay.api("PATCH", "/api/settings", { deepseekApiKey: "not-the-key" });
  try {
    const refused = await relay.say(other, "hello", 60_000);
    assert.match(refused.error, /DeepSeek refused the API key \(401/);
    assert.match(refused.error, /Settings → Providers → DeepSeek/);
  } finally {
    await relay.api("PATCH", "/api/settings", { deepseekApiKey: "ds-key" });
  }
});

test("a long conversation compacts at the session's window (update_session auto_compact_window)", async () => {
  const ds = await deepseekSession("Long");
  const boss = await relay.createSession({ title: "Boss" });
  const set = await agentTool(relay, boss, {
    action: "update_session",
    relay: "this",
    session: ds,
    auto_compact_window: 100_000,
  });
  assert.equal(set.ok, true, JSON.stringify(set));
  assert.equal(set.settings.auto_compact_window, 100_000);
  fake.reset();
  fake.setScript((call) => {
    if (!call.stream) return { text: "SUMMARY: the user talked about apples." };
    if (/first/.test(lastUserText(call)))
      return { text: "noted", usage: { prompt_tokens: 150_000, completion_tokens: 10 } };
    return { text: "answer two", usage: { prompt_tokens: 900, completion_tokens: 5 } };
  });
  assert.equal((await relay.say(ds, "first: I like apples", 60_000)).text, "noted");
  assert.equal((await relay.say(ds, "second question", 60_000)).text, "answer two");
  const summaryCall = fake.calls.find((c) => !c.stream);
  assert.ok(summaryCall, "a summary was asked for");
  assert.match(JSON.stringify(summaryCall.messages), /first: I like apples/);
  const after = fake.calls.at(-1)!;
  const sent = JSON.stringify(after.messages);
  assert.match(sent, /SUMMARY: the user talked about apples/);
  assert.doesNotMatch(sent, /first: I like apples/, "the older turn was replaced by its summary");
  assert.match(sent, /second question/);
});

test("ask mode: an edit raises a permission card; Allow edits, Deny leaves the file", async () => {
  writeFileSync(join(folder, "ask.txt"), "before\n");
  const ds = await deepseekSession("Asker", { mode: "ask" });
  fake.reset();
  fake.setScript((call) =>
    toolResults(call).length === 0
      ? {
          toolCalls: [
            { name: "edit_file", arguments: { path: "ask.txt", old_string: "before", new_string: lastUserText(call) } },
          ],
        }
      : { text: `result: ${toolResults(call)[0].text}` },
  );

  const decide = async (text: string, body: Record<string, unknown>) => {
    const reply = relay.say(ds, text, 120_000);
    const card = await relay.waitFor(async () =>
      (await relay.api("GET", `/api/cards?session=${ds}`)).json.cards.find((c: any) => c.kind === "permission"),
    );
    assert.deepEqual(
      card.options.map((o: any) => o.kind),
      ["allow_once", "allow_always", "reject_once"],
    );
    assert.match(JSON.stringify(card), /Edit ask\.txt/);
    assert.equal((await relay.api("POST", `/api/cards/${card.id}`, body)).status, 200);
    return reply;
  };
  const denied = await decide("denied-text", { decision: "deny" });
  assert.match(denied.text, /result: The user denied it/);
  assert.equal(readFileSync(join(folder, "ask.txt"), "utf8"), "before\n");
  // Allow picks the agent's allow-once option (the relay never picks "always" itself).
  const allowed = await decide("allowed-text", { decision: "allow" });
  assert.match(allowed.text, /result: Edited ask\.txt/);
  assert.equal(readFileSync(join(folder, "ask.txt"), "utf8"), "allowed-text\n");
});

/** A session folder with symbolic links in it, and a folder outside it they point into. */
function linkedFolder() {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "oar-ds-links-")));
  const outside = realpathSync(mkdtempSync(join(tmpdir(), "oar-ds-outside-")));
  writeFileSync(join(outside, "secret.txt"), "secret\n");
  symlinkSync(join(outside, "new.txt"), join(dir, "dangling.txt")); // dangling, to a file outside
  symlinkSync(join(outside, "newdir"), join(dir, "gone")); // dangling, to a folder outside
  symlinkSync(`../${outside.split("/").pop()}/secret.txt`, join(dir, "secret-link.txt")); // relative, to a file outside
  return { dir, outside };
}

/** Runs `calls` one per model round, then ends the turn; the tool results the model got. */
function scriptCalls(calls: { name: string; arguments: Record<string, unknown> }[]) {
  fake.reset();
  fake.setScript((call) => {
    const n = toolResults(call).length;
    return n < calls.length ? { toolCalls: [calls[n]] } : { text: "done" };
  });
  return () => toolResults(fake.calls.at(-1)!);
}

test("file tools through symbolic links, dangling ones too: nothing outside the folder is written, edited or read", async () => {
  const { dir, outside } = linkedFolder();
  symlinkSync("notes/later.txt", join(dir, "alias.txt")); // dangling, to a file inside that does not exist yet
  const ds = await relay.createSession({ provider: "deepseek", cwd: dir, title: "Links" });
  const results = scriptCalls([
    { name: "write_file", arguments: { path: "dangling.txt", content: "escaped" } },
    { name: "write_file", arguments: { path: join(dir, "gone", "x.txt"), content: "escaped" } },
    { name: "edit_file", arguments: { path: "secret-link.txt", old_string: "secret", new_string: "owned" } },
    { name: "read_file", arguments: { path: "secret-link.txt" } },
    { name: "list_files", arguments: { path: "gone" } },
    { name: "write_file", arguments: { path: "alias.txt", content: "kept inside" } },
  ]);
  const reply = await relay.say(ds, "Try the links.", 120_000);
  assert.equal(reply.text, "done", JSON.stringify(reply));
  const r = results();
  assert.equal(r.length, 6);
  for (const x of r.slice(0, 5))
    assert.match(
      x.text,
      new RegExp(`is outside the session's folder ${dir} \\(a symbolic link leads it to ${outside}/`),
      x.text,
    );
  assert.deepEqual(readdirSync(outside), ["secret.txt"], "nothing was created outside");
  assert.equal(readFileSync(join(outside, "secret.txt"), "utf8"), "secret\n");
  assert.ok(!r[3].text.includes("secret\n"), "nothing was read from outside");
  // A link to a place inside the folder is followed: the file is made where it points.
  assert.match(r[5].text, /^Created notes\/later\.txt/);
  assert.equal(readFileSync(join(dir, "notes", "later.txt"), "utf8"), "kept inside");
  assert.ok(lstatSync(join(dir, "alias.txt")).isSymbolicLink());
});

test("ask mode: the permission card names the real target of a link; a link leading outside is refused without a card", async () => {
  const { dir, outside } = linkedFolder();
  symlinkSync("drafts/plan.md", join(dir, "plan-link.md"));
  const ds = await relay.createSession({ provider: "deepseek", cwd: dir, title: "Links, asked", mode: "ask" });
  const results = scriptCalls([
    { name: "write_file", arguments: { path: "dangling.txt", content: "escaped" } },
    { name: "write_file", arguments: { path: "plan-link.md", content: "the plan" } },
  ]);
  const reply = relay.say(ds, "Write the plan.", 120_000);
  const card = await relay.waitFor(async () =>
    (await relay.api("GET", `/api/cards?session=${ds}`)).json.cards.find((c: any) => c.kind === "permission"),
  );
  assert.ok(card.text.includes(`Files: ${join(dir, "drafts", "plan.md")}.`), card.text);
  assert.ok(card.details.includes(`Files: ${join(dir, "drafts", "plan.md")}`), JSON.stringify(card.details));
  assert.equal((await relay.api("POST", `/api/cards/${card.id}`, { decision: "allow" })).json.status, "allowed");
  assert.equal((await reply).text, "done");
  const r = results();
  assert.match(r[0].text, /is outside the session's folder/);
  assert.match(r[1].text, /^Created drafts\/plan\.md/);
  assert.equal(readFileSync(join(dir, "drafts", "plan.md"), "utf8"), "the plan");
  assert.ok(!existsSync(join(outside, "new.txt")));
  assert.equal((await relay.session(ds)).cards.length, 1, "one card: the write outside was never asked for");
});
