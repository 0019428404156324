// OpenAI Image (provider openai-image): our own ACP agent process on the official SDK,
// against a fake OpenAI Images API on loopback. Generate, then edit (by reference and by file
// name), files saved under the session's folder, meta.images on the reply, the owner's file
// route, options (prompt words, effort, ACP config options), and errors in words.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { TestRelay } from "./helpers/relay-process.ts";
import "./helpers/core-helpers.ts";
import { FakeOpenAI, type ErrorAnswer, type ImageAnswer } from "./helpers/fake-openai.ts";
import type { RawRequest } from "./helpers/fake-http.ts";
import { png } from "./helpers/png.ts";
import { decide } from "../src/providers/openai-image/intent.ts";
import { turnOptions } from "../src/providers/openai-image/options.ts";
import { inWords } from "../src/providers/openai-image/images-api.ts";

const KEY = "sk-test-good";
/** Answers for the next image requests (errors), before the default answer. */
const failNext: ErrorAnswer["error"][] = [];
let seq = 0;
/** The images API as OpenAI answers: a real PNG of the asked size, content policy refusals. */
function imageAnswer(req: RawRequest): ImageAnswer {
  const queued = failNext.shift();
  if (queued) return { error: queued };
  if (/forbidden/i.test(String(req.body?.prompt))) {
    return {
      error: {
        status: 400,
        message: "Your request was rejected as a result of our safety system.",
        type: "image_generation_user_error",
        code: "content_policy_violation",
      },
    };
  }
  const size = typeof req.body?.size === "string" && req.body.size !== "auto" ? req.body.size : "1024x1024";
  const [w, h] = size.split("x").map(Number);
  return { b64: png(w, h, ++seq).toString("base64") };
}

let relay: TestRelay;
let fake: FakeOpenAI;
before(async () => {
  fake = await FakeOpenAI.start({ apiKey: KEY, image: imageAnswer });
  relay = await TestRelay.start({ settings: { openaiApiKey: KEY, openaiBaseUrl: fake.baseUrl } });
});
after(async () => {
  await relay.stop();
  await fake.close();
});

const folder = () => realpathSync(mkdtempSync(join(tmpdir(), "oar-img-")));
const imageSession = (cwd: string, more: Record<string, unknown> = {}) =>
  relay.createSession({ provider: "openai-image", title: "pictures", cwd, ...more });
const lastRequest = () => {
  const r = fake.imageRequests[fake.imageRequests.length - 1];
  return { ...r, auth: r.headers.authorization };
};

test("generate, then edit the last image, then edit an image named by its file: files, reply lines, meta.images", async () => {
  const cwd = folder();
  const id = await imageSession(cwd);

  const first = await relay.say(id, "A red fox in the snow, 1536x1024");
  assert.equal(first.meta?.status, "done", JSON.stringify(first));
  let req = lastRequest();
  assert.equal(req.path, "/v1/images/generations");
  assert.equal(req.body.model, "gpt-image-2");
  assert.equal(req.body.size, "1536x1024");
  assert.equal(req.body.prompt, "A red fox in the snow, 1536x1024");
  const [img1] = first.meta.images;
  assert.equal(first.meta.images.length, 1);
  assert.ok(img1.path.startsWith(`${join(cwd, "images")}/`), img1.path);
  assert.match(basename(img1.path), /^\d{8}-\d{6}-\d{3}-1\.png$/);
  assert.equal(img1.mimeType, "image/png");
  assert.equal(img1.size, "1536x1024");
  assert.equal(img1.bytes, statSync(img1.path).size);
  assert.match(first.text, /^Generated: 1 image with gpt-image-2 \(size 1536x1024, quality auto\)\.\n- /);
  assert.ok(first.text.includes(`- ${img1.path} (1536x1024, ${img1.bytes.toLocaleString("en-US")} bytes)`), first.text);

  const second = await relay.say(id, "Make it blue");
  req = lastRequest();
  assert.equal(req.path, "/v1/images/edits");
  assert.equal(req.body.prompt, "Make it blue");
  assert.equal(req.body.model, "gpt-image-2");
  assert.ok(Buffer.compare(req.body.image.bytes, readFileSync(img1.path)) === 0, "the edit uploads the last image");
  assert.equal(req.body.image.type, "image/png");
  const [img2] = second.meta.images;
  assert.notEqual(img2.path, img1.path);
  assert.ok(existsSync(img2.path));
  assert.match(second.text, new RegExp(`^Edited images/${basename(img1.path)}: 1 image`));

  // Named by its file: the first image again, not the last one.
  await relay.say(id, `Edit ${basename(img1.path)}: add a moon`);
  req = lastRequest();
  assert.equal(req.path, "/v1/images/edits");
  assert.ok(Buffer.compare(req.body.image.bytes, readFileSync(img1.path)) === 0);

  // A new picture is generated even after images exist; its words set count and quality.
  const fourth = await relay.say(id, "A new image of a lighthouse, 2 images, high quality");
  req = lastRequest();
  assert.equal(req.path, "/v1/images/generations");
  assert.equal(req.body.n, 2);
  assert.equal(req.body.quality, "high");
  assert.equal(fourth.meta.images.length, 2);
  assert.match(fourth.text, /^Generated: 2 images with gpt-image-2 \(size auto, quality high\)\./);
});

test("the edit after an agent restart still knows the conversation's last image", async () => {
  const cwd = folder();
  const id = await imageSession(cwd);
  const first = await relay.say(id, "A green teapot");
  await relay.api("POST", `/api/sessions/${id}/kill`);
  await relay.say(id, "Now make it shiny");
  const req = lastRequest();
  assert.equal(req.path, "/v1/images/edits");
  assert.ok(Buffer.compare(req.body.image.bytes, readFileSync(first.meta.images[0].path)) === 0);
});

test("effort stands in for quality; a model from the catalog is sent", async () => {
  const id = await imageSession(folder(), { effort: "low" });
  await relay.say(id, "A quiet harbour");
  assert.equal(lastRequest().body.quality, "low");
  assert.equal(lastRequest().body.model, "gpt-image-2");
  assert.equal(lastRequest().auth, `Bearer ${KEY}`);
});

test("the owner's file route serves images inside the session's folder only", async () => {
  const cwd = folder();
  const id = await imageSession(cwd);
  const reply = await relay.say(id, "A small boat");
  const path = reply.meta.images[0].path;
  const url = `${relay.url}/api/sessions/${id}/files?path=${encodeURIComponent(path)}`;

  const ok = await fetch(url, { headers: { authorization: `Bearer ${relay.token}` } });
  assert.equal(ok.status, 200);
  assert.equal(ok.headers.get("content-type"), "image/png");
  assert.equal(ok.headers.get("x-content-type-options"), "nosniff");
  assert.ok(Buffer.compare(Buffer.from(await ok.arrayBuffer()), readFileSync(path)) === 0);
  assert.equal((await fetch(url)).status, 401, "the owner's token is needed");

  const outside = join(folder(), "elsewhere.png");
  writeFileSync(outside, png(4, 4));
  const files = (p: string) => relay.api("GET", `/api/sessions/${id}/files?path=${encodeURIComponent(p)}`);
  let r = await files(outside);
  assert.equal(r.status, 403);
  assert.equal(r.json.code, "REMOTE_RELAY_FORBIDDEN");
  assert.match(r.json.error, /is not inside the folder of session "pictures"/);
  // A link inside the folder to a file outside it is outside too.
  symlinkSync(outside, join(cwd, "images", "link.png"));
  r = await files(join(cwd, "images", "link.png"));
  assert.equal(r.json.code, "REMOTE_RELAY_FORBIDDEN");
  r = await files(join(cwd, "images", "..", "..", basename(outside)));
  assert.equal(r.status, 403);
  r = await files("images/x.png");
  assert.equal(r.json.code, "REMOTE_RELAY_INVALID_INPUT");
  writeFileSync(join(cwd, "notes.html"), "<script>alert(1)</script>");
  r = await files(join(cwd, "notes.html"));
  assert.equal(r.status, 400);
  assert.match(r.json.error, /Only images are served/);
  r = await files(join(cwd, "images", "missing.png"));
  assert.equal(r.status, 404);
  r = await relay.api("GET", `/api/sessions/ses_nope/files?path=${encodeURIComponent(path)}`);
  assert.equal(r.json.code, "REMOTE_RELAY_NOT_FOUND");
});

test("an edited gallery list cannot make it send a file outside the folder: an absolute path, ../, a link; a list or images folder that is a link is not followed", async () => {
  const cwd = folder();
  const id = await imageSession(cwd);
  const first = await relay.say(id, "A red apple");
  assert.equal(first.meta?.status, "done", JSON.stringify(first));
  const list = join(cwd, "images", readdirSync(join(cwd, "images")).find((f) => f.startsWith(".oar-"))!);
  const away = folder();
  const secret = join(away, "secret.png");
  writeFileSync(secret, png(3, 3, 4242));
  const sentSecret = () =>
    fake.imageRequests.some(
      (r) => r.body?.image?.bytes && Buffer.compare(r.body.image.bytes, readFileSync(secret)) === 0,
    );
  symlinkSync(secret, join(cwd, "images", "pretty.png"));
  const edits = [
    secret,
    join(cwd, "images", "..", "..", basename(away), "secret.png"),
    join(cwd, "images", "pretty.png"),
  ];
  for (const path of edits) {
    // As if edited by hand or by another tool; read when the agent process starts again.
    writeFileSync(list, JSON.stringify([{ path, mimeType: "image/png", bytes: 1 }]));
    await relay.api("POST", `/api/sessions/${id}/kill`);
    const asked = fake.imageRequests.length;
    const reply = await relay.say(id, "Make it blue");
    assert.equal(reply.meta?.status, "error", JSON.stringify(reply));
    assert.match(
      reply.meta.error,
      /\(the conversation's last image, as images\/\.oar-ses_\w+\.json names it\) leads outside the session's folder .*Nothing was sent and no image was made/,
    );
    assert.equal(fake.imageRequests.length, asked, "no request went to the images endpoint");
  }

  // The list itself a link to a list outside: not read (so nothing it names is the last
  // image), and replaced by the agent's own list, not written through.
  const outsideList = join(away, "list.json");
  writeFileSync(outsideList, JSON.stringify([{ path: secret }]));
  unlinkSync(list);
  symlinkSync(outsideList, list);
  await relay.api("POST", `/api/sessions/${id}/kill`);
  const fresh = await relay.say(id, "Make it blue");
  assert.equal(fresh.meta?.status, "done", JSON.stringify(fresh));
  assert.equal(lastRequest().path, "/v1/images/generations", "no last image: a new one is generated");
  assert.ok(!lstatSync(list).isSymbolicLink(), "the link was replaced");
  assert.deepEqual(JSON.parse(readFileSync(outsideList, "utf8")), [{ path: secret }], "the outside list is untouched");
  assert.equal(sentSecret(), false, "the outside file never reached the images endpoint");

  // An images folder that is a link out of the session's folder: refused before any request.
  const other = folder();
  const elsewhere = folder();
  symlinkSync(elsewhere, join(other, "images"));
  const id2 = await imageSession(other);
  const asked = fake.imageRequests.length;
  const refused = await relay.say(id2, "A green pear");
  assert.equal(refused.meta?.status, "error");
  assert.match(
    refused.meta.error,
    /^The images folder .*\/images is a link that leads outside the session's folder .*no image was made\.$/,
  );
  assert.equal(fake.imageRequests.length, asked);
  assert.deepEqual(readdirSync(elsewhere), [], "nothing was written there");
});

test("errors in words: content policy, rate limit after retries, server failure, bad key; a 429 then success works", async () => {
  const id = await imageSession(folder());
  let reply = await relay.say(id, "Something forbidden");
  assert.equal(reply.meta.status, "error");
  assert.match(
    reply.meta.error,
    /^OpenAI refused the prompt under its content policy \(content_policy_violation\): Your request was rejected as a result of our safety system\. Rephrase the prompt; no image was made\.$/,
  );
  assert.equal(reply.meta.images, undefined);

  const rate = {
    status: 429,
    message: "Rate limit reached for images per minute.",
    type: "requests",
    code: "rate_limit_exceeded",
  };
  failNext.push(rate);
  reply = await relay.say(id, "A lighthouse at dusk");
  assert.equal(reply.meta.status, "done", "the SDK retried the 429");
  assert.equal(reply.meta.images.length, 1);

  failNext.push(rate, rate, rate);
  reply = await relay.say(id, "A lighthouse at dawn");
  assert.equal(reply.meta.status, "error");
  assert.match(
    reply.meta.error,
    /^OpenAI's rate limit was reached \(429\), also after retrying: Rate limit reached for images per minute\. Wait a minute/,
  );

  const down = {
    status: 500,
    message: "The server had an error while processing your request.",
    type: "server_error",
    code: null,
  };
  failNext.push(down, down, down);
  reply = await relay.say(id, "A lighthouse at noon");
  assert.match(reply.meta.error, /^OpenAI failed \(500\), also after retrying: The server had an error/);

  // The key is given to the agent process when it starts: a new session sees the new key.
  await relay.api("PATCH", "/api/settings", { openaiApiKey: "sk-test-wrong" });
  const other = await imageSession(folder());
  reply = await relay.say(other, "A lighthouse at night");
  await relay.api("PATCH", "/api/settings", { openaiApiKey: KEY });
  assert.equal(reply.meta.status, "error");
  assert.match(
    reply.meta.error,
    /^OpenAI did not accept the API key \(401\): Incorrect API key provided.*Set a valid key in Settings → Providers \(openaiApiKey\); no image was made\.$/,
  );
  assert.ok(!reply.meta.error.includes("sk-test-wrong"), "the key is masked in the reply");
});

test("relay_tool: agents cannot start OpenAI Image sessions", async () => {
  const boss = await relay.createSession({ title: "boss" });
  const mcp = await relay.mcp(boss);
  const r = await mcp.call({ action: "create_session", relay: "this", provider: "openai-image", text: "a cat" });
  assert.equal(r.code, "REMOTE_RELAY_UNSUPPORTED");
  assert.match(r.error, /OpenAI Image conversations cannot be started with create_session\. Nothing was created\./);
});

test("a prompt from another agent reaches OpenAI without the relay's header line; usage is kept with the reply", async () => {
  const id = await imageSession(folder());
  const boss = await relay.createSession({ title: "art director" });
  const mcp = await relay.mcp(boss);
  const r = await mcp.call({ action: "send", relay: "this", session: id, text: "A blue whale", wait_seconds: 120 });
  assert.equal(r.status, "done", JSON.stringify(r));
  assert.equal(lastRequest().body.prompt, "A blue whale");
  const reply = (await relay.session(id)).messages.at(-1);
  assert.deepEqual(reply.meta.usage, { inputTokens: 50, outputTokens: 50 });
  assert.match(r.reply.text, /^Generated: 1 image with gpt-image-2/);
});

test("ACP surface: size and quality as config options advertised at session/new and set with session/set_config_option", async () => {
  const cwd = folder();
  const child = spawn(process.execPath, ["--import", "tsx", "src/providers/openai-image/agent.ts"], {
    env: { ...process.env, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.baseUrl },
    stdio: ["pipe", "pipe", "ignore"],
  });
  const chunks: any[] = [];
  const conn = acp
    .client({ name: "test" })
    .onNotification("session/update", ({ params }) => void chunks.push(params.update))
    .connect(
      acp.ndJsonStream(
        Writable.toWeb(child.stdin!) as unknown as WritableStream<Uint8Array>,
        Readable.toWeb(child.stdout!) as unknown as ReadableStream<Uint8Array>,
      ),
    );
  try {
    await conn.agent.request("initialize", { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
    const s = await conn.agent.request("session/new", { cwd, mcpServers: [] });
    const ids = (s.configOptions ?? []).map((o) => o.id);
    assert.deepEqual(ids, ["model", "size", "quality"]);
    const size = s.configOptions!.find((o) => o.id === "size") as any;
    assert.deepEqual(
      size.options.map((o: any) => o.value),
      ["auto", "1024x1024", "1536x1024", "1024x1536"],
    );

    const set = await conn.agent.request("session/set_config_option", {
      sessionId: s.sessionId,
      configId: "size",
      value: "1024x1536",
    });
    assert.equal((set.configOptions.find((o) => o.id === "size") as any).currentValue, "1024x1536");
    await conn.agent.request("session/set_config_option", {
      sessionId: s.sessionId,
      configId: "quality",
      value: "medium",
    });
    await assert.rejects(
      conn.agent.request("session/set_config_option", { sessionId: s.sessionId, configId: "quality", value: "ultra" }),
      /quality "ultra" is not one of auto, low, medium, high/,
    );

    const res = await conn.agent.request("session/prompt", {
      sessionId: s.sessionId,
      prompt: [{ type: "text", text: "A tall tower" }],
    });
    assert.equal(res.stopReason, "end_turn");
    assert.equal(lastRequest().body.size, "1024x1536");
    assert.equal(lastRequest().body.quality, "medium");
    const link = chunks.find((u) => u.content?.type === "resource_link");
    assert.equal(link.content.mimeType, "image/png");
    assert.equal(link.content._meta.oar.size, "1024x1536");
    assert.ok(link.content.uri.startsWith(`file://${cwd}/images/`));
  } finally {
    child.kill();
  }
});

test("intent: generate or edit, and only files inside the folder", () => {
  const cwd = folder();
  mkdirSync(join(cwd, "images"));
  const last = join(cwd, "images", "a.png");
  writeFileSync(last, png(2, 2));
  writeFileSync(join(cwd, "b.png"), png(2, 2));
  const outside = join(folder(), "secret.png");
  writeFileSync(outside, png(2, 2));
  assert.deepEqual(decide("make it blue", cwd, null), { kind: "generate" });
  assert.deepEqual(decide("make it blue", cwd, last), { kind: "edit", image: last, named: false });
  assert.deepEqual(decide("edit the last image: add snow", cwd, last), { kind: "edit", image: last, named: false });
  assert.deepEqual(decide("change its background to white", cwd, last), { kind: "edit", image: last, named: false });
  assert.deepEqual(decide("a castle on a hill", cwd, last), { kind: "generate" });
  assert.deepEqual(decide("make a new image of it, but at night", cwd, last), { kind: "generate" });
  assert.deepEqual(decide("use b.png and add a hat", cwd, last), {
    kind: "edit",
    image: join(cwd, "b.png"),
    named: true,
  });
  assert.deepEqual(decide("edit a.png", cwd, null), { kind: "edit", image: last, named: true });
  assert.deepEqual(
    decide(`edit ${outside}`, cwd, null),
    { kind: "generate" },
    "a file outside the folder is never uploaded",
  );
  assert.deepEqual(turnOptions({ model: "m", size: "auto", quality: "auto" }, "high", "three images 1024x1024"), {
    model: "m",
    size: "1024x1024",
    quality: "high",
    n: 3,
  });
  assert.deepEqual(
    turnOptions({ model: "m", size: "1536x1024", quality: "low" }, "high", "quality: medium, 9 images"),
    { model: "m", size: "1536x1024", quality: "medium", n: 4 },
  );
  assert.equal(inWords(new Error("plain"), "x"), "plain");
});
