// Which models are accepted (relay_tool §8.2, since 0.9.13 / 0.9.19) and the window/thinking
// settings per provider. Providers whose CLIs cannot run here are made runnable by the
// test-only OAR_FAKE_PROVIDERS switch (their sessions run the scripted agent); their catalogs
// are the real ones, so the rules are the product's.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TestRelay, type McpSession } from "./helpers/relay-process.ts";
import { sayDeciding, toolLines } from "./helpers/settings-kit.ts";
import { modelNotes } from "../src/providers/model-check.ts";
import { fakeProviders } from "../src/providers/catalog.ts";

let relay: TestRelay;
let boss: string;
let mcp: McpSession;
before(async () => {
  process.env.OAR_FAKE_PROVIDERS = "copilot,claude,claude-cloud,deepseek,grok=?";
  relay = await TestRelay.start();
  delete process.env.OAR_FAKE_PROVIDERS;
  boss = await relay.createSession({ title: "model boss" });
  mcp = await relay.mcp(boss);
  // Allow once: this conversation may then change sessions it did not start.
  const other = await relay.createSession({ title: "warm-up" });
  const r = await sayDeciding(
    relay,
    boss,
    toolLines({ action: "update_session", relay: "this", session: other, title: "warmed" }),
    "allow",
  );
  assert.equal(r.results[0].ok, true, JSON.stringify(r.results[0]));
});
after(() => relay.stop());

const update = (session: string, more: Record<string, unknown>) =>
  mcp.call({ action: "update_session", relay: "this", session, ...more });
const messages = async (id: string) => (await relay.session(id)).messages.length;

test("relay_info: each provider's catalog; Copilot ids with dots; no list means modelNote", async () => {
  const info = await mcp.call({ action: "relay_info", relay: "this" });
  const p = Object.fromEntries(info.providers.map((x: any) => [x.id, x]));
  assert.deepEqual(p.copilot.models, [
    "claude-opus-5.5",
    "claude-sonnet-5.5",
    "gpt-5.4",
    "gpt-5.4-mini",
    "gemini-3-pro",
  ]);
  assert.equal(p.copilot.available, true);
  assert.deepEqual(p.claude.models, ["claude-opus-5-5", "claude-sonnet-5-5", "claude-haiku-5"]);
  assert.deepEqual(p.claude.efforts, ["low", "medium", "high", "max"]);
  const { capabilities: _caps, ...scripted } = p.scripted;
  assert.deepEqual(scripted, {
    id: "scripted",
    name: "Scripted",
    available: true,
    defaultModel: "scripted-1",
    models: ["scripted-1", "scripted-2"],
    efforts: ["low", "medium", "high"],
  });
  assert.deepEqual(p.grok.models, []);
  assert.match(p.grok.modelNote, /No model list for Grok yet/);
  assert.equal(p.deepseek.available, false, "a key provider still needs its key");
  assert.match(p.deepseek.reason, /DeepSeek is not set up on this relay/);
});

test("create_session: unknown Copilot model with suggestions; a Claude id points at Claude — before any card, nothing created", async () => {
  const fresh = await relay.mcp(await relay.createSession({ title: "no card yet" }));
  const count = (await relay.api("GET", "/api/sessions")).json.sessions.length;
  const r = await fresh.call({
    action: "create_session",
    relay: "this",
    provider: "copilot",
    model: "gpt-5-4",
    text: "x",
  });
  assert.equal(r.code, "REMOTE_RELAY_UNKNOWN_MODEL");
  assert.equal(
    r.error,
    `Unknown model 'gpt-5-4' for Copilot on relay "desk"; did you mean 'gpt-5.4'? Valid ids: claude-opus-5.5, claude-sonnet-5.5, gpt-5.4, gpt-5.4-mini, gemini-3-pro. Nothing was created.`,
  );
  assert.deepEqual(r.suggestions, ["gpt-5.4"]);
  assert.equal(r.models.length, 5);

  const c = await fresh.call({
    action: "create_session",
    relay: "this",
    provider: "copilot",
    model: "claude-opus-5-5",
    text: "x",
  });
  assert.equal(c.code, "CLAUDE_PROVIDER_REQUIRED");
  assert.match(
    c.error,
    /^Model 'claude-opus-5-5' is a Claude model; start the session with provider "claude".*Nothing was created\.$/,
  );
  assert.equal((await relay.api("GET", "/api/sessions")).json.sessions.length, count);
});

test("a Copilot session: other providers' ids refused with the nearest match, provider never changes", async () => {
  const cop = await relay.createSession({ title: "copilot", provider: "copilot", model: "claude-opus-5.5" });
  const before = await messages(cop);
  const s = await mcp.call({ action: "send", relay: "this", session: cop, model: "claude-opus-5-5", text: "hi" });
  assert.equal(s.code, "COPILOT_MODEL_UNAVAILABLE");
  assert.equal(
    s.error,
    "Copilot has no model 'claude-opus-5-5'; the nearest Copilot model is 'claude-opus-5.5' (Copilot ids use dots). Nothing was sent.",
  );
  assert.equal(await messages(cop), before);

  const u = await update(cop, { model: "claude-sonnet-5-5" });
  assert.equal(u.code, "COPILOT_MODEL_UNAVAILABLE");
  assert.match(u.error, /nearest Copilot model is 'claude-sonnet-5\.5'.*Nothing was changed\.$/);

  const billing = await mcp.call({ action: "send", relay: "this", session: cop, provider: "claude", text: "hi" });
  assert.equal(billing.code, "REMOTE_RELAY_PROVIDER_UNAVAILABLE");
  assert.equal(billing.remoteCode, "CLAUDE_PROVIDER_REQUIRED");

  const ok = await update(cop, { model: "gpt-5.4" });
  assert.deepEqual(ok.changed, ["model"]);
  const sent = await mcp.call({ action: "send", relay: "this", session: cop, text: "/model" });
  assert.equal(sent.status, "done", JSON.stringify(sent));
  assert.match(sent.reply.text, /^gpt-5\.4\n/);
  const after = await relay.session(cop);
  assert.equal(after.provider, "copilot");
  assert.equal(after.model, "gpt-5.4");
});

test("a provider without a model list: the model passes unchecked and modelNote says so", async () => {
  const res = await sayDeciding(
    relay,
    boss,
    toolLines({ action: "create_session", relay: "this", provider: "grok", model: "grok-9-preview", text: "/model" }),
    "allow",
  );
  const r = res.results[0];
  assert.equal(r.ok, true, JSON.stringify(r));
  assert.equal(r.model, "grok-9-preview");
  assert.match(r.reply.text, /^grok-9-preview\n/);
  assert.match(r.modelNote, /^Relay "desk" has no model list for Grok yet .*'grok-9-preview' was not checked\.$/);
  const u = await update(r.session, { model: "grok-10" });
  assert.deepEqual(u.changed, ["model"]);
  assert.match(u.modelNote, /no model list for Grok yet/);
});

test("window and thinking: Claude takes them (nearest window), DeepSeek takes the window (0 = 400,000) and always thinks", async () => {
  const claude = await relay.createSession({ title: "claude", provider: "claude" });
  let r = await update(claude, { auto_compact_window: 350_000, thinking_enabled: "off", thinking_display: "full" });
  assert.equal(r.ok, true, JSON.stringify(r));
  assert.deepEqual(r.changed, ["auto_compact_window", "thinking_enabled", "thinking_display"]);
  assert.equal(r.settings.auto_compact_window, 400_000);
  assert.equal(r.settings.thinking_enabled, false);
  assert.equal(r.settings.thinking_display, "full");
  assert.match(r.note, /The window took the nearest value Claude offers: 400,000 tokens \(asked 350,000 tokens\)\./);
  r = await update(claude, { auto_compact_window: "auto", thinking_enabled: true });
  assert.deepEqual(r.changed, ["auto_compact_window", "thinking_enabled"]);
  assert.equal(r.note, undefined);

  await relay.api("PATCH", "/api/settings", { deepseekApiKey: "ds-test-key-123456" });
  const ds = await relay.createSession({ title: "deepseek", provider: "deepseek" });
  r = await update(ds, { auto_compact_window: 0, thinking_enabled: "off" });
  assert.deepEqual(r.changed, ["auto_compact_window"]);
  assert.equal(r.settings.auto_compact_window, 400_000);
  assert.equal(r.settings.thinking_enabled, true);
  assert.match(
    r.note,
    /apply to Claude sessions \(Claude API included\); on DeepSeek the window takes effect \(0 means 400,000 tokens\).*DeepSeek sessions always think/,
  );
});

test("a Claude Cloud session works on a clone of its repository: its folder cannot change", async () => {
  await relay.api("PATCH", "/api/settings", { claudeCloudToken: "cloud-test-token-42" });
  // The relay really clones: a local repository stands in for example-org/sample-repo.
  const repo = join(mkdtempSync(join(tmpdir(), "oar-models-")), "sample-repo.git");
  execFileSync("git", ["init", "-q", "--bare", "-b", "main", repo]);
  const res = await sayDeciding(
    relay,
    boss,
    toolLines({
      action: "create_session",
      relay: "this",
      provider: "claude-cloud",
      repo,
      branch: "main",
      text: "hi",
      wait_seconds: 0,
    }),
    "allow",
  );
  const cloud = res.results[0];
  assert.equal(cloud.ok, true, JSON.stringify(cloud));
  assert.equal(cloud.repo, repo);
  const r = await update(cloud.session, { cwd: "/tmp", title: "cloud 2" });
  assert.equal(r.code, "REMOTE_RELAY_INVALID_INPUT");
  assert.equal(
    r.error,
    `Claude Cloud sessions work on a clone of their repository (${repo}); cwd cannot change. Nothing was changed.`,
  );
  assert.equal((await relay.session(cloud.session)).title, cloud.title);
});

test("modelNote when the model running differs from the one asked for", () => {
  assert.deepEqual(modelNotes({ model: "claude-opus-5-5" }, { reply: { model: "claude-opus-5-5" } }), {});
  assert.deepEqual(modelNotes({ model: "claude-opus-5-5" }, { reply: { model: "claude-sonnet-5-5" } }), {
    modelNote: "The session runs on 'claude-sonnet-5-5', not on 'claude-opus-5-5' as asked.",
  });
  assert.deepEqual(modelNotes(null, { reply: { model: "x" } }), {});
});

test("the OAR_FAKE_PROVIDERS test switch: ids, replaced lists, failed discovery", () => {
  const f = fakeProviders("claude, claude-api=claude-sonnet-5-5|claude-haiku-5 ,grok=?,nope,scripted");
  assert.deepEqual([...f.ids].sort(), ["claude", "claude-api", "grok"]);
  assert.deepEqual(f.catalogs, { "claude-api": ["claude-sonnet-5-5", "claude-haiku-5"], grok: null });
  assert.deepEqual(fakeProviders("").ids.size, 0);
});
