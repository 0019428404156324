// Provider set-up as owner settings: keys and tokens are stored, shown masked, never in
// results, task output or logs; the Claude API cap and its monthly spend.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { TestRelay, type McpSession } from "./helpers/relay-process.ts";

const KEY = "sk-ant-api03-VerySecretValue-0123456789";
const TOKEN = "cloud-token-AbCdEf-987654321";
let relay: TestRelay;
let mcp: McpSession;
let caller: string;
before(async () => {
  // Claude API and Claude Cloud run the Claude ACP adapter, not installed here: the test switch
  // stands in for it (their key settings still decide whether they are set up).
  process.env.OAR_FAKE_PROVIDERS = "claude-api,claude-cloud";
  relay = await TestRelay.start();
  caller = await relay.createSession({ title: "asker" });
  mcp = await relay.mcp(caller);
});
after(() => relay.stop());

const provider = async (id: string) =>
  (await mcp.call({ action: "relay_info", relay: "this" })).providers.find((p: any) => p.id === id);

test("defaults: nothing set up, no cap", async () => {
  const s = (await relay.api("GET", "/api/settings")).json;
  assert.equal(s.claudeApiKey, null);
  assert.equal(s.claudeCloudToken, null);
  assert.equal(s.deepseekApiKey, null);
  assert.equal(s.openaiApiKey, null);
  assert.equal(s.claudeApiMonthlyCapUsd, null);
  assert.equal(s.claudeApiSpentUsd, 0);
  assert.equal((await provider("claude-api")).available, false);
});

test("a key is set, shown as ****, kept when **** comes back, removed with empty or null", async () => {
  const set = await relay.api("PATCH", "/api/settings", { claudeApiKey: KEY, claudeCloudToken: TOKEN });
  assert.equal(set.status, 200);
  assert.equal(set.json.claudeApiKey, "****");
  assert.equal(set.json.claudeCloudToken, "****");
  assert.doesNotMatch(JSON.stringify(set.json), /VerySecret|AbCdEf/);
  assert.equal((await relay.api("GET", "/api/settings")).json.claudeApiKey, "****");
  assert.equal((await provider("claude-api")).available, true);
  assert.equal((await provider("claude-cloud")).available, true);

  // The page sends back what it was shown: the key stays.
  await relay.api("PATCH", "/api/settings", { ...(await relay.api("GET", "/api/settings")).json });
  assert.equal((await provider("claude-api")).available, true);

  await relay.api("PATCH", "/api/settings", { claudeCloudToken: "" });
  assert.equal((await relay.api("GET", "/api/settings")).json.claudeCloudToken, null);
  assert.equal((await provider("claude-cloud")).available, false);

  const bad = await relay.api("PATCH", "/api/settings", { claudeApiKey: 12345, agentSessions: false });
  assert.equal(bad.status, 400);
  assert.equal(bad.json.code, "REMOTE_RELAY_INVALID_INPUT");
  assert.match(
    bad.json.error,
    /Setting claudeApiKey is not valid: it must be text \(or null to remove it\)\. Nothing was changed\./,
  );
  assert.equal(
    (await relay.api("GET", "/api/settings")).json.agentSessions,
    true,
    "nothing of a refused update is written",
  );
});

test("secrets appear in no result, no task output and no log; they survive a restart", async () => {
  await relay.api("PATCH", "/api/settings", { claudeApiKey: KEY });
  const info = await mcp.call({ action: "relay_info", relay: "this" });
  const usage = await mcp.call({ action: "usage", relay: "this" });
  assert.doesNotMatch(JSON.stringify([info, usage]), /VerySecret/);

  const reply = await relay.say(caller, `/task leak echo the key is ${KEY}`);
  const taskId = /task: (\S+) started/.exec(reply.text)![1];
  const out = await relay.waitFor(async () => {
    const o = (await relay.api("GET", `/api/sessions/${caller}/tasks/${taskId}/output`)).json;
    return o.lines?.some(Boolean) && o;
  });
  assert.deepEqual(out.lines.filter(Boolean), ["the key is ****"]);
  const read = await mcp.call({ action: "read_task_output", relay: "this", session: caller, task_id: taskId });
  assert.doesNotMatch(JSON.stringify(read), /VerySecret/);

  await relay.restart();
  assert.equal((await relay.api("GET", "/api/settings")).json.claudeApiKey, "****");
  mcp = await relay.mcp(caller);
  assert.equal((await provider("claude-api")).available, true);
  assert.doesNotMatch(relay.output, /VerySecret/);
});

test("the monthly cap: at the cap Claude API is unavailable with the reason; a new month starts from nothing spent", async () => {
  await relay.api("PATCH", "/api/settings", { claudeApiKey: KEY, claudeApiMonthlyCapUsd: 50, claudeApiSpentUsd: 12.5 });
  assert.equal((await provider("claude-api")).available, true);
  const s = (await relay.api("PATCH", "/api/settings", { claudeApiSpentUsd: 50 })).json;
  assert.equal(s.claudeApiSpentUsd, 50);
  assert.equal(s.claudeApiMonthlyCapUsd, 50);
  const p = await provider("claude-api");
  assert.equal(p.available, false);
  assert.equal(p.reason, "the Claude API key reached its monthly cap ($50.00 spent of $50.00)");

  const bad = await relay.api("PATCH", "/api/settings", { claudeApiMonthlyCapUsd: -1 });
  assert.equal(bad.status, 400);

  const now = new Date(await relay.advance(0));
  await relay.setClock(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1, 0, 0, 1)).toISOString());
  assert.equal((await relay.api("GET", "/api/settings")).json.claudeApiSpentUsd, 0);
  assert.equal((await provider("claude-api")).available, true);
});

test("provider settings of contract §9.2: every key and token masked and kept out of results and logs; endpoints plain with defaults", async () => {
  const s = (await relay.api("GET", "/api/settings")).json;
  for (const k of ["openaiCompatibleApiKey", "copilotToken", "xaiApiKey"]) assert.equal(s[k], null, k);
  assert.equal(s.openaiCompatibleBaseUrl, null);
  assert.equal(s.openaiCompatibleName, "OpenAI-compatible");
  assert.equal(s.deepseekBaseUrl, "https://api.deepseek.com");
  assert.equal(s.openaiBaseUrl, "https://api.openai.com/v1");

  const secrets = {
    openaiCompatibleApiKey: "oc-Secret-11111111",
    copilotToken: "ghu_Secret222222222",
    xaiApiKey: "xai-Secret-33333333",
    deepseekApiKey: "ds-Secret-4444",
    openaiApiKey: "sk-Secret-5555",
  };
  const set = await relay.api("PATCH", "/api/settings", {
    ...secrets,
    openaiCompatibleBaseUrl: "http://127.0.0.1:9/v1",
    openaiCompatibleName: "Local LLM",
    deepseekBaseUrl: "http://127.0.0.1:9",
  });
  assert.equal(set.status, 200);
  for (const k of Object.keys(secrets)) assert.equal(set.json[k], "****", k);
  assert.equal(set.json.openaiCompatibleBaseUrl, "http://127.0.0.1:9/v1");
  assert.equal(set.json.openaiCompatibleName, "Local LLM");
  // No value shows (the key webhookSecret of the notify setting is a name, not a value).
  assert.doesNotMatch(JSON.stringify(set.json), /-Secret|_Secret/);

  // Every secret is masked where text leaves the relay (task output is one such place).
  const reply = await relay.say(caller, `/task leak2 echo ${Object.values(secrets).join(" ")}`);
  const taskId = /task: (\S+) started/.exec(reply.text)![1];
  const out = await relay.waitFor(async () => {
    const o = (await relay.api("GET", `/api/sessions/${caller}/tasks/${taskId}/output`)).json;
    return o.lines?.some(Boolean) && o;
  });
  assert.deepEqual(out.lines.filter(Boolean), ["**** **** **** **** ****"]);

  const bad = await relay.api("PATCH", "/api/settings", { deepseekBaseUrl: "ftp://x" });
  assert.equal(bad.status, 400);
  assert.match(bad.json.error, /Setting deepseekBaseUrl is not valid: it must be an http:\/\/ or https:\/\/ address/);
  const cleared = await relay.api("PATCH", "/api/settings", { openaiCompatibleBaseUrl: "", copilotToken: "" });
  assert.equal(cleared.json.openaiCompatibleBaseUrl, null);
  assert.equal(cleared.json.copilotToken, null);
  assert.doesNotMatch(relay.output, /Secret-|ghu_Secret/);
});
