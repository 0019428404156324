// The fake model servers the real-CLI tests run against speak the real wire formats:
// these checks read their answers the way a client library does (SSE parsed line by line).
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { FakeOpenAI, errors, lastUserText, toolResults } from "./helpers/fake-openai.ts";
import { FakeAnthropic } from "./helpers/fake-anthropic.ts";

/** Reads an SSE body into its events ({ event?, data }). */
async function readSse(r: Response): Promise<{ event?: string; data: string }[]> {
  const text = await r.text();
  return text
    .split("\n\n")
    .filter((b) => b.trim())
    .map((block) => {
      const lines = block.split("\n");
      const event = lines.find((l) => l.startsWith("event: "))?.slice(7);
      const data = lines
        .filter((l) => l.startsWith("data: "))
        .map((l) => l.slice(6))
        .join("\n");
      return { event, data };
    });
}

let oa: FakeOpenAI;
before(async () => {
  oa = await FakeOpenAI.start({ apiKey: "k1", models: ["m-a", "m-b"] });
});
after(() => oa.close());

const post = (url: string, body: unknown, key = "k1") =>
  fetch(url, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });

test("openai: streamed answer with reasoning, text, tool-call deltas and usage in the last chunk", async () => {
  oa.reset();
  oa.queue({
    reasoning: "thinking it over",
    text: "calling a tool now",
    toolCalls: [{ id: "call_x", name: "relay_tool", arguments: { action: "list_sessions" } }],
  });
  const r = await post(`${oa.baseUrl}/chat/completions`, {
    model: "m-b",
    stream: true,
    stream_options: { include_usage: true },
    messages: [{ role: "user", content: "hi there" }],
    tools: [{ type: "function", function: { name: "relay_tool", parameters: {} } }],
  });
  assert.equal(r.status, 200);
  assert.match(r.headers.get("content-type") ?? "", /text\/event-stream/);
  const events = await readSse(r);
  assert.equal(events.at(-1)!.data, "[DONE]");
  const chunks = events.slice(0, -1).map((e) => JSON.parse(e.data));
  let content = "",
    reasoning = "",
    args = "",
    name = "",
    id = "",
    finish = "";
  for (const c of chunks) {
    const ch = c.choices[0];
    if (!ch) continue;
    content += ch.delta.content ?? "";
    reasoning += ch.delta.reasoning_content ?? "";
    for (const t of ch.delta.tool_calls ?? []) {
      assert.equal(t.index, 0);
      if (t.id) id = t.id;
      if (t.function?.name) name = t.function.name;
      args += t.function?.arguments ?? "";
    }
    if (ch.finish_reason) finish = ch.finish_reason;
  }
  assert.equal(content, "calling a tool now");
  assert.equal(reasoning, "thinking it over");
  assert.deepEqual([id, name, JSON.parse(args)], ["call_x", "relay_tool", { action: "list_sessions" }]);
  assert.equal(finish, "tool_calls");
  const last = chunks.at(-1);
  assert.deepEqual(last.choices, []);
  assert.ok(last.usage.prompt_tokens > 0 && last.usage.completion_tokens > 0);
  assert.equal(oa.calls[0].model, "m-b");
  assert.deepEqual(oa.calls[0].tools, ["relay_tool"]);
  assert.equal(lastUserText(oa.calls[0]), "hi there");
});

test("openai: a script sees tool results; non-streamed answers; models; wrong key 401; error answers", async () => {
  oa.reset();
  oa.setScript((call) => {
    const res = toolResults(call);
    return res.length
      ? { text: `got ${res[0].text}`, usage: { prompt_tokens: 7, completion_tokens: 3 } }
      : { toolCalls: [{ id: "c1", name: "t", arguments: {} }] };
  });
  const first = await (
    await post(`${oa.baseUrl}/chat/completions`, { model: "m-a", messages: [{ role: "user", content: "go" }] })
  ).json();
  assert.equal(first.choices[0].finish_reason, "tool_calls");
  assert.equal(first.choices[0].message.tool_calls[0].function.name, "t");
  const second = await (
    await post(`${oa.baseUrl}/chat/completions`, {
      model: "m-a",
      messages: [
        { role: "user", content: "go" },
        { role: "assistant", content: null, tool_calls: first.choices[0].message.tool_calls },
        { role: "tool", tool_call_id: "c1", content: "42" },
      ],
    })
  ).json();
  assert.equal(second.choices[0].message.content, "got 42");
  assert.deepEqual(second.usage, { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 });

  const models = await (await fetch(`${oa.baseUrl}/models`, { headers: { authorization: "Bearer k1" } })).json();
  assert.deepEqual(
    models.data.map((m: any) => m.id),
    ["m-a", "m-b"],
  );

  const bad = await post(`${oa.baseUrl}/chat/completions`, { model: "m-a", messages: [] }, "wrong");
  assert.equal(bad.status, 401);
  assert.equal((await bad.json()).error.code, "invalid_api_key");
  assert.equal(oa.calls.at(-1)!.authorized, false);

  oa.queue(errors.rateLimited(2));
  const limited = await post(`${oa.baseUrl}/chat/completions`, { model: "m-a", messages: [] });
  assert.equal(limited.status, 429);
  assert.equal(limited.headers.get("retry-after"), "2");
  assert.equal((await limited.json()).error.code, "rate_limit_exceeded");
});

test("openai: image generation and edits answer b64_json", async () => {
  oa.reset();
  oa.setImage((req) => ({ b64: Buffer.from(`img for ${req.body.prompt}`).toString("base64") }));
  const gen = await (
    await post(`${oa.baseUrl}/images/generations`, { model: "gpt-image-2", prompt: "a cat", n: 2 })
  ).json();
  assert.equal(gen.data.length, 2);
  assert.equal(Buffer.from(gen.data[0].b64_json, "base64").toString(), "img for a cat");
  const form = new FormData();
  form.append("model", "gpt-image-2");
  form.append("prompt", "hat on it");
  form.append("image", new Blob([Buffer.from("PNGDATA")], { type: "image/png" }), "in.png");
  const edit = await fetch(`${oa.baseUrl}/images/edits`, {
    method: "POST",
    headers: { authorization: "Bearer k1" },
    body: form,
  });
  assert.equal(edit.status, 200);
  assert.equal(Buffer.from((await edit.json()).data[0].b64_json, "base64").toString(), "img for hat on it");
  const seen = oa.imageRequests.at(-1)!;
  assert.equal(seen.body.image.filename, "in.png");
  assert.equal(seen.body.image.bytes.toString(), "PNGDATA");
});

test("anthropic: streamed text, thinking and tool_use (input_json_delta) with usage; classifier and side calls; 401 body", async () => {
  const an = await FakeAnthropic.start({
    apiKey: "ak",
    script: () => ({
      thinking: "hmm",
      text: "using a tool",
      toolUses: [{ id: "toolu_1", name: "mcp__relay__relay_tool", input: { action: "list_sessions", relay: "this" } }],
    }),
  });
  try {
    const post = (body: unknown, key = "ak") =>
      fetch(`${an.baseUrl}/v1/messages`, {
        method: "POST",
        headers: { "x-api-key": key, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const r = await post({
      model: "claude-x",
      stream: true,
      max_tokens: 100,
      tools: [{ name: "mcp__relay__relay_tool" }],
      messages: [{ role: "user", content: "go" }],
    });
    const events = await readSse(r);
    assert.equal(events[0].event, "message_start");
    assert.equal(events.at(-1)!.event, "message_stop");
    let text = "",
      thinking = "",
      json = "",
      stop = "",
      out = 0;
    for (const e of events) {
      const d = JSON.parse(e.data);
      assert.equal(d.type, e.event, "every event names its type twice, as Anthropic's do");
      if (d.type === "content_block_delta") {
        text += d.delta.text ?? "";
        thinking += d.delta.thinking ?? "";
        json += d.delta.partial_json ?? "";
      }
      if (d.type === "content_block_start" && d.content_block.type === "tool_use")
        assert.deepEqual([d.content_block.id, d.content_block.name], ["toolu_1", "mcp__relay__relay_tool"]);
      if (d.type === "message_delta") [stop, out] = [d.delta.stop_reason, d.usage.output_tokens];
    }
    assert.deepEqual(
      [text, thinking, JSON.parse(json), stop],
      ["using a tool", "hmm", { action: "list_sessions", relay: "this" }, "tool_use"],
    );
    assert.ok(out > 0);
    assert.equal(an.calls[0].kind, "main");

    const verdict = await (
      await post({
        model: "claude-y",
        max_tokens: 64,
        system: "You are a security monitor for autonomous AI coding agents.",
        messages: [{ role: "user", content: [{ type: "text", text: "<transcript>\n{}\n</transcript>" }] }],
      })
    ).json();
    assert.equal(verdict.content[0].text, "<block>no</block>");
    assert.equal(an.calls[1].kind, "classifier");
    an.classify = () => "block";
    const blocked = await (
      await post({
        model: "claude-y",
        max_tokens: 64,
        system: "You are a security monitor for autonomous AI coding agents.",
        messages: [{ role: "user", content: "<transcript></transcript>" }],
      })
    ).json();
    assert.match(blocked.content[0].text, /^<block>yes<\/block>/);
    const side = await (
      await post({ model: "claude-z", max_tokens: 64, messages: [{ role: "user", content: "title please" }] })
    ).json();
    assert.equal(an.calls.at(-1)!.kind, "side");
    assert.equal(side.content[0].type, "text");

    const bad = await post({ model: "claude-x", messages: [] }, "wrong");
    assert.equal(bad.status, 401);
    assert.deepEqual(await bad.json(), {
      type: "error",
      error: { type: "authentication_error", message: "invalid x-api-key" },
    });
  } finally {
    await an.close();
  }
});

test("openai: Grok's key check (/v1/api-key) answers with the key accepted, 401 with another", async () => {
  const ok = await fetch(`${oa.baseUrl}/api-key`, { headers: { authorization: "Bearer k1" } });
  assert.equal(ok.status, 200);
  assert.equal((await ok.json()).api_key_blocked, false);
  assert.equal((await fetch(`${oa.baseUrl}/api-key`, { headers: { authorization: "Bearer nope" } })).status, 401);
});
