// The OpenAI-compatible provider (contract §9.2) on our own agent, and the agent's rules seen
// over ACP directly (what the relay does not show yet): tool calls with diffs, permission in
// ask mode, read-only plan mode, paths kept inside the folder, tasks, models and usage.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, TestRelay } from "./helpers/relay-process.ts";
import { FakeOpenAI, toolResults, type ChatCall } from "./helpers/fake-openai.ts";
import { startAgent, textOf, toolCalls, type Drive } from "./helpers/openai-agent-drive.ts";
import { launchSpec } from "../src/providers/launch.ts";
import { ENV } from "../src/providers/openai-agent/config.ts";

let fake: FakeOpenAI;
const drives: Drive[] = [];
before(async () => {
  fake = await FakeOpenAI.start({ apiKey: null, models: ["qwen-coder", "llama-4"] });
});
after(async () => {
  for (const d of drives) d.close();
  await fake?.close();
});

function agent(provider: "deepseek" | "openai-compatible" = "openai-compatible", baseUrl?: string): Drive {
  const settings =
    provider === "deepseek"
      ? { deepseekApiKey: "k", deepseekBaseUrl: baseUrl ?? fake.baseUrl }
      : { openaiCompatibleBaseUrl: baseUrl ?? fake.baseUrl, openaiCompatibleName: "Local box" };
  const d = startAgent(provider, settings);
  drives.push(d);
  return d;
}

const folder = () => mkdtempSync(join(tmpdir(), "oar-oc-"));

/** Steps through `answers`, one per model request of a turn (by the tool results so far). */
const steps =
  (...answers: ((c: ChatCall) => any)[]) =>
  (c: ChatCall) =>
    answers[Math.min(toolResults(c).length, answers.length - 1)](c);

test("session/new advertises modes and the endpoint's models; set_model and effort reach the requests; usage comes back", async () => {
  const d = agent();
  const s = await d.newSession(folder(), { effort: "high" });
  assert.deepEqual(
    s.modes.availableModes.map((m: any) => m.id),
    ["agent", "ask", "plan"],
  );
  assert.equal(s.modes.currentModeId, "agent");
  assert.deepEqual(
    s.models.availableModels.map((m: any) => m.modelId),
    ["qwen-coder", "llama-4"],
  );
  assert.equal(s.models.currentModelId, "qwen-coder");
  fake.reset();
  fake.setScript(() => ({
    reasoning: "thinking out loud",
    text: "hi there",
    usage: { prompt_tokens: 120, completion_tokens: 30, cached_tokens: 100 },
  }));
  const r = await d.prompt(s.sessionId, "hello");
  assert.equal(r.stopReason, "end_turn");
  assert.deepEqual(
    r._meta.oar.usage,
    { inputTokens: 120, outputTokens: 30, cachedTokens: 100 },
    "no price for a local endpoint",
  );
  assert.equal(textOf(d.updates), "hi there");
  assert.equal(textOf(d.updates, "agent_thought_chunk"), "thinking out loud");
  assert.equal(fake.calls[0].model, "qwen-coder");
  assert.equal(fake.calls[0].body.reasoning_effort, "high");
  assert.equal(fake.calls[0].body.thinking, undefined, "only DeepSeek gets its thinking switch");

  await d.conn.agent.request("session/set_model" as any, { sessionId: s.sessionId, modelId: "llama-4" });
  await d.prompt(s.sessionId, "again");
  assert.equal(fake.calls.at(-1)!.model, "llama-4");
  assert.equal(
    fake.calls
      .at(-1)!
      .messages.filter((m: any) => m.role === "assistant")
      .some((m: any) => "reasoning_content" in m),
    false,
  );
});

test("DeepSeek reports the turn's cost from its price table", async () => {
  const d = agent("deepseek");
  const s = await d.newSession(folder(), { model: "deepseek-v4" });
  fake.reset();
  fake.setScript(() => ({
    text: "ok",
    usage: { prompt_tokens: 1_000_000, completion_tokens: 1_000_000, cached_tokens: 0 },
  }));
  const r = await d.prompt(s.sessionId, "price me");
  assert.equal(r._meta.oar.usage.costUsd, 0.7);
  assert.equal(fake.calls[0].body.reasoning_effort, undefined, "DeepSeek's API takes no reasoning_effort");
});

test("an edit is an ACP tool call with a diff; ask mode asks first: Deny leaves the file, Allow edits, Always allow stops asking", async () => {
  const dir = folder();
  writeFileSync(join(dir, "a.txt"), "one\ntwo\n");
  const d = agent();
  const s = await d.newSession(dir);
  fake.reset();
  const edit = (from: string, to: string) => () => ({
    toolCalls: [{ name: "edit_file", arguments: { path: "a.txt", old_string: from, new_string: to } }],
  });
  fake.setScript(steps(edit("one", "ONE"), () => ({ text: "edited" })));

  // agent mode: no question, the diff goes out with the tool call.
  await d.prompt(s.sessionId, "edit it");
  assert.equal(readFileSync(join(dir, "a.txt"), "utf8"), "ONE\ntwo\n");
  assert.equal(d.permissions.length, 0);
  const call = toolCalls(d.updates).find((c) => c.kind === "edit")!;
  assert.equal(call.status, "completed");
  assert.equal(call.title, "Edit a.txt");
  const diff = call.content.find((c: any) => c.type === "diff");
  assert.deepEqual(
    { ...diff, path: diff.path.endsWith("/a.txt") },
    { type: "diff", path: true, oldText: "one\ntwo\n", newText: "ONE\ntwo\n" },
  );

  await d.conn.agent.request("session/set_mode", { sessionId: s.sessionId, modeId: "ask" });
  d.answer = () => "reject_once";
  fake.setScript(steps(edit("two", "TWO"), () => ({ text: "ok" })));
  await d.prompt(s.sessionId, "edit again");
  assert.equal(readFileSync(join(dir, "a.txt"), "utf8"), "ONE\ntwo\n", "denied: unchanged");
  assert.equal(d.permissions.length, 1);
  assert.deepEqual(
    d.permissions[0].options.map((o: any) => o.kind),
    ["allow_once", "allow_always", "reject_once"],
  );
  assert.equal(d.permissions[0].toolCall.title, "Edit a.txt");
  assert.match(toolResults(fake.calls.at(-1)!)[0].text, /denied/);

  d.answer = () => "allow_once";
  await d.prompt(s.sessionId, "edit again");
  assert.equal(readFileSync(join(dir, "a.txt"), "utf8"), "ONE\nTWO\n");
  assert.equal(d.permissions.length, 2);

  d.answer = () => "allow_always";
  fake.setScript(steps(edit("TWO", "2"), () => ({ text: "ok" })));
  await d.prompt(s.sessionId, "edit");
  fake.setScript(steps(edit("2", "two"), () => ({ text: "ok" })));
  await d.prompt(s.sessionId, "edit");
  assert.equal(readFileSync(join(dir, "a.txt"), "utf8"), "ONE\ntwo\n");
  assert.equal(d.permissions.length, 3, "Always allow is not asked again in this session");
});

test("plan mode offers only reading tools; paths outside the folder are refused", async () => {
  const dir = folder();
  writeFileSync(join(dir, "src.ts"), "export const x = 1;\n");
  const d = agent();
  const s = await d.newSession(dir, { mode: "plan" });
  fake.reset();
  fake.setScript(
    steps(
      () => ({
        toolCalls: [
          { name: "read_file", arguments: { path: "../../etc/passwd" } },
          { name: "search_files", arguments: { pattern: "const x" } },
          { name: "list_files", arguments: { pattern: "**/*.ts" } },
        ],
      }),
      () => ({ text: "planned" }),
    ),
  );
  await d.prompt(s.sessionId, "look around");
  assert.deepEqual(fake.calls[0].tools, ["read_file", "list_files", "search_files", "update_plan"]);
  const [outside, search, list] = toolResults(fake.calls.at(-1)!);
  assert.match(outside.text, /outside the session's folder/);
  assert.equal(search.text, "src.ts:1: export const x = 1;");
  assert.equal(list.text, "src.ts");
  assert.equal(toolCalls(d.updates)[0].status, "failed");
});

test("run_command: short commands answer with output; background ones are tasks reported to the relay", async () => {
  const d = agent();
  const s = await d.newSession(folder());
  fake.reset();
  fake.setScript(
    steps(
      () => ({ toolCalls: [{ name: "run_command", arguments: { command: "echo short-out; exit 3" } }] }),
      () => ({
        toolCalls: [
          { name: "run_command", arguments: { command: "echo bg-out", background: true, description: "bg job" } },
        ],
      }),
      () => ({ text: "ran" }),
    ),
  );
  await d.prompt(s.sessionId, "run things");
  const [short, bg] = toolResults(fake.calls.at(-1)!);
  assert.equal(short.text, "exit code 3\nshort-out");
  const id = /background task (\S+)/.exec(bg.text)?.[1];
  assert.ok(id, bg.text);
  const end = Date.now() + 20_000;
  while (!d.tasks.some((t) => t.taskId === id && t.status !== "running") && Date.now() < end)
    await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(
    d.tasks.filter((t) => t.taskId === id).map((t) => t.status),
    ["running", "completed"],
  );
  assert.equal(d.tasks[0].description, "bg job");
  assert.equal(d.taskOutput.get(id!), "bg-out\n");
  assert.equal(toolCalls(d.updates).find((c) => c.kind === "execute" && /exit 3/.test(c.title))!.status, "failed");
});

test("relay: openai-compatible needs its base URL, shows its own name and the endpoint's models, and runs turns", async () => {
  const relay = await TestRelay.start();
  try {
    const observer = await relay.mcp(await relay.createSession({ title: "observer" }));
    const before = (await observer.call({ action: "relay_info", relay: "this" })).providers.find(
      (p: any) => p.id === "openai-compatible",
    );
    assert.equal(before.available, false);
    assert.match(before.reason, /OpenAI-compatible is not set up on this relay: add its base URL/);

    await relay.api("PATCH", "/api/settings", {
      openaiCompatibleBaseUrl: fake.baseUrl,
      openaiCompatibleName: "Workstation llama",
    });
    const info = (await observer.call({ action: "relay_info", relay: "this" })).providers.find(
      (p: any) => p.id === "openai-compatible",
    );
    assert.equal(info.available, true, JSON.stringify(info));
    assert.equal(info.name, "Workstation llama");
    assert.deepEqual(info.models, ["qwen-coder", "llama-4"]);
    assert.equal(info.defaultModel, "qwen-coder");

    const bad = await relay.api("POST", "/api/sessions", {
      provider: "openai-compatible",
      model: "qwen-codr",
      title: "x",
    });
    assert.equal(bad.json.code, "REMOTE_RELAY_UNKNOWN_MODEL");
    const id = await relay.createSession({ provider: "openai-compatible", model: "llama-4", title: "Local" });
    fake.reset();
    fake.setScript(() => ({ text: "local model here" }));
    const reply = await relay.say(id, "hi", 60_000);
    assert.equal(reply.text, "local model here");
    assert.equal(fake.calls[0].model, "llama-4");
    assert.equal(
      fake.calls[0].headers.authorization,
      "Bearer none",
      "no key set: a placeholder, never another provider's key",
    );
  } finally {
    await relay.stop();
  }
});

test("the worker's environment holds its own key and no other provider's secret", () => {
  const settings = {
    deepseekApiKey: "ds-secret-1",
    openaiCompatibleApiKey: "oc-secret-2",
    openaiCompatibleBaseUrl: "http://127.0.0.1:9/v1",
    claudeApiKey: "cl-secret-3",
    openaiApiKey: "oa-secret-4",
  };
  const ds = launchSpec("deepseek", settings)!;
  assert.equal(ds.env[ENV.apiKey], "ds-secret-1");
  assert.equal(ds.env[ENV.provider], "deepseek");
  const oc = launchSpec("openai-compatible", settings)!;
  assert.equal(oc.env[ENV.apiKey], "oc-secret-2");
  assert.equal(oc.env[ENV.baseUrl], "http://127.0.0.1:9/v1");
  for (const [spec, own] of [
    [ds, "ds-secret-1"],
    [oc, "oc-secret-2"],
  ] as const) {
    const values = Object.values(spec.env);
    for (const other of ["ds-secret-1", "oc-secret-2", "cl-secret-3", "oa-secret-4"].filter((v) => v !== own))
      assert.ok(!values.includes(other), `${other} kept out`);
  }
  assert.equal(launchSpec("openai-compatible", { openaiCompatibleApiKey: "k" }), null, "no base URL: nothing to start");
});

test("an unreachable endpoint ends the turn with words naming it and what to do", async () => {
  const closed = `http://127.0.0.1:${await freePort()}/v1`; // nothing listens there
  const d = agent("openai-compatible", closed);
  const s = await d.newSession(folder(), { model: "some-model" });
  await assert.rejects(d.prompt(s.sessionId, "hello"), (e: any) => {
    assert.ok(e.message.startsWith(`Could not reach Local box (${closed}): ECONNREFUSED.`), e.message);
    assert.match(
      e.message,
      /check the network, or that the endpoint runs and the base URL in Settings → Providers → OpenAI-compatible is right/,
    );
    assert.equal(e.data?.oar?.kind, "config");
    return true;
  });
});

test("without a window, a server saying the context is full makes the agent compact and try again", async () => {
  const d = agent();
  const s = await d.newSession(folder());
  fake.reset();
  fake.setScript(() => ({ text: "first answer" }));
  await d.prompt(s.sessionId, "remember: bananas");
  let refused = false;
  fake.setScript((call) => {
    if (!call.stream) return { text: "SUMMARY: bananas were mentioned." };
    if (!refused) {
      refused = true;
      return {
        error: {
          status: 400,
          message: "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens.",
          type: "invalid_request_error",
          code: "context_length_exceeded",
        },
      };
    }
    return { text: "second answer" };
  });
  const r = await d.prompt(s.sessionId, "what now?");
  assert.equal(r.stopReason, "end_turn");
  const last = JSON.stringify(fake.calls.at(-1)!.messages);
  assert.match(last, /SUMMARY: bananas were mentioned/);
  assert.doesNotMatch(last, /remember: bananas/);
  assert.match(textOf(d.updates, "agent_thought_chunk"), /context is full: summarizing earlier turns/);
});
