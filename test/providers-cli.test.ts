// The CLI providers (Claude, Claude API, Copilot, Grok) through a real relay, with the fake
// ACP agent (test/helpers/fake-acp-agent.ts) on PATH under each CLI's name: settings applied
// with the calls the agent advertised, models from the agent, each worker's own secrets only,
// what the agent did kept with the reply, usage, errors in words, Grok's MCP wait.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TestRelay, type McpSession } from "./helpers/relay-process.ts";
import { fakeCliDir, withEnv } from "./helpers/fake-cli.ts";
import { hash } from "./helpers/fake-acp-agent-hash.ts";

let relay: TestRelay;
const SIGNED_OUT_FILE = join(mkdtempSync(join(tmpdir(), "oar-signout-")), "signed-out");
let mcp: McpSession;
let boss: string;
const SECRETS = {
  claudeApiKey: "sk-ant-OwnersKey-111",
  copilotToken: "ghu_OwnersToken222",
  xaiApiKey: "xai-OwnersKey-333",
  deepseekApiKey: "ds-OwnersKey-444",
};

before(async () => {
  const dir = fakeCliDir({ env: { FAKE_ACP_MCP_DELAY_MS: "1500", FAKE_ACP_SIGNED_OUT_FILE: SIGNED_OUT_FILE } });
  relay = await withEnv(
    // The relay's own environment carries other providers' variables: each worker gets only its own.
    {
      PATH: `${dir}:${process.env.PATH}`,
      GH_TOKEN: "gh-relay-env-token",
      ANTHROPIC_API_KEY: "sk-ant-relay-env",
      DEEPSEEK_API_KEY: "ds-relay-env",
      ANTHROPIC_BASE_URL: "http://127.0.0.1:9",
    },
    () => TestRelay.start({ settings: SECRETS }),
  );
  // The availability probes at start find each CLI's models; wait for them.
  await relay.waitFor(
    async () =>
      (await relay.api("GET", "/api/providers")).json.providers.filter(
        (p: any) => ["claude", "claude-api", "copilot", "grok"].includes(p.id) && p.checkedAt,
      ).length === 4,
    90_000,
  );
  boss = await relay.createSession({ title: "boss" });
  mcp = await relay.mcp(boss);
});
after(() => relay.stop());

const create = async (body: Record<string, unknown>) => {
  const r = await relay.api("POST", "/api/sessions", { title: "t", ...body });
  assert.equal(r.status, 201, JSON.stringify(r.json));
  return r.json.id as string;
};
const state = async (id: string) => JSON.parse((await relay.say(id, "/state")).text);
// The agent reports each variable as a short hash (or <unset>); `is` says whether it holds `value`.
const env = async (id: string, ...names: string[]) =>
  Object.fromEntries(
    (await relay.say(id, `/env ${names.join(" ")}`)).text.split(" ").map((kv: string) => kv.split("=", 2)),
  );
const is = (value: string) => hash(value);
/** Waits until no availability probe of the provider runs (GET /api/providers `checking`). */
const probed = (id: string) =>
  relay.waitFor(
    async () =>
      (await relay.api("GET", "/api/providers")).json.providers.find((p: any) => p.id === id)?.checking === false,
    90_000,
  );

test("the session's mode, model and effort reach the CLI through its advertised calls, at start and after a change", async () => {
  const id = await create({ provider: "claude", model: "claude-sonnet-5-5", effort: "high" });
  const s = await state(id);
  // agent → the most autonomous mode offered; the relay's Anthropic id → the adapter's own value.
  assert.deepEqual(s.calls, [
    "set_config_option mode=bypassPermissions",
    "set_config_option model=sonnet",
    "set_config_option effort=high",
  ]);
  assert.equal(s.mode, "bypassPermissions");
  assert.equal(s.model, "sonnet");

  const patched = await relay.api("PATCH", `/api/sessions/${id}`, {
    mode: "plan",
    model: "claude-haiku-5",
    effort: "max",
  });
  assert.equal(patched.status, 200, JSON.stringify(patched.json));
  const after = await state(id);
  assert.deepEqual(after.calls.slice(3), [
    "set_config_option mode=plan",
    "set_config_option model=haiku",
    "set_config_option effort=max",
  ]);
  // Nothing changed: nothing is sent again.
  assert.equal((await state(id)).calls.length, 6);

  // Copilot: modes by its URL ids; ask keeps its agent mode, plan its plan mode.
  const cp = await create({ provider: "copilot", mode: "plan" });
  assert.deepEqual((await state(cp)).calls, [
    "set_config_option mode=https://agentclientprotocol.com/protocol/session-modes#plan",
    "set_model claude-sonnet-5.5",
  ]);
});

test("models come from the agent: relay_info lists them, the default follows them, the check uses them", async () => {
  const g = await create({ provider: "grok" });
  assert.equal((await state(g)).model, "grok-4.6");
  const info = await mcp.call({ action: "relay_info", relay: "this" });
  const grok = info.providers.find((p: any) => p.id === "grok");
  assert.deepEqual(grok.models, ["grok-4.6", "grok-4.5"]);
  assert.equal(grok.defaultModel, "grok-4.6");
  const claude = info.providers.find((p: any) => p.id === "claude");
  assert.deepEqual(claude.models, ["claude-opus-5-5", "claude-sonnet-5-5", "claude-haiku-5"]);
  const refused = await relay.api("POST", "/api/sessions", { provider: "grok", model: "grok-5", title: "x" });
  assert.equal(refused.status, 400);
  assert.equal(refused.json.code, "REMOTE_RELAY_UNKNOWN_MODEL");
  assert.match(refused.json.error, /Valid ids: grok-4\.6, grok-4\.5/);
  const switched = await relay.api("PATCH", `/api/sessions/${g}`, { model: "grok-4.5" });
  assert.equal(switched.status, 200);
  assert.equal((await state(g)).model, "grok-4.5");
});

test("each worker gets only its own provider's secrets; the relay's other variables pass", async () => {
  const names = [
    "XAI_API_KEY",
    "COPILOT_GITHUB_TOKEN",
    "GH_TOKEN",
    "ANTHROPIC_API_KEY",
    "DEEPSEEK_API_KEY",
    "ANTHROPIC_BASE_URL",
    "IS_SANDBOX",
  ];
  const grok = await env(await create({ provider: "grok" }), ...names);
  assert.equal(grok.XAI_API_KEY, is(SECRETS.xaiApiKey));
  for (const n of ["COPILOT_GITHUB_TOKEN", "GH_TOKEN", "ANTHROPIC_API_KEY", "DEEPSEEK_API_KEY"])
    assert.equal(grok[n], "<unset>", `grok ${n}`);
  assert.equal(
    grok.ANTHROPIC_BASE_URL,
    is("http://127.0.0.1:9"),
    "a CLI's own non-secret variables pass to every worker",
  );

  const copilot = await env(await create({ provider: "copilot" }), ...names);
  assert.equal(copilot.COPILOT_GITHUB_TOKEN, is(SECRETS.copilotToken));
  assert.equal(copilot.GH_TOKEN, is("gh-relay-env-token"));
  for (const n of ["XAI_API_KEY", "ANTHROPIC_API_KEY", "DEEPSEEK_API_KEY"])
    assert.equal(copilot[n], "<unset>", `copilot ${n}`);

  const api = await env(await create({ provider: "claude-api" }), ...names);
  assert.equal(
    api.ANTHROPIC_API_KEY,
    is(SECRETS.claudeApiKey),
    "Claude API runs on the owner's key, not the relay's variable",
  );
  for (const n of ["XAI_API_KEY", "COPILOT_GITHUB_TOKEN", "GH_TOKEN", "DEEPSEEK_API_KEY"])
    assert.equal(api[n], "<unset>", `claude-api ${n}`);
  assert.equal(api.IS_SANDBOX, process.getuid?.() === 0 ? is("1") : "<unset>", "IS_SANDBOX only as root");

  const sub = await env(await create({ provider: "claude" }), ...names);
  assert.equal(
    sub.ANTHROPIC_API_KEY,
    is("sk-ant-relay-env"),
    "the subscription keeps the relay's own Claude variables",
  );
  assert.equal(sub.XAI_API_KEY, "<unset>");
});

test("what the agent did is kept with the reply (activity, compact) and read_session shows a summary", async () => {
  const id = await create({ provider: "claude" });
  const reply = await relay.say(id, "/tool\n/relaytool");
  const meta = (await relay.session(id)).messages.find((m: any) => m.id === reply.id).meta;
  assert.equal(meta.status, "done");
  const [thought, plan, edit, relayCall] = meta.activity;
  assert.deepEqual(thought, { kind: "thought", text: "Let me edit the file." });
  assert.deepEqual(plan, { kind: "plan", entries: [{ content: "Edit a.txt", status: "completed", priority: "high" }] });
  assert.equal(edit.kind, "tool");
  assert.equal(edit.status, "completed");
  assert.deepEqual(edit.locations, ["/w/a.txt"]);
  assert.deepEqual(edit.diffs, [{ path: "/w/a.txt", oldText: "old\n", newText: "new\n" }]);
  assert.equal(edit.output, "1 line changed");
  assert.deepEqual(relayCall.relay, { action: "read_session", relay: "this", session: "ses_x" });
  assert.equal(meta.activity.length, 4, "a tool call's updates merge into its one entry");

  const read = await mcp.call({ action: "read_session", relay: "this", session: id });
  const agentMsg = read.messages.find((m: any) => m.id === reply.id);
  assert.deepEqual(agentMsg.activity, ["Edit a.txt ✓", "🛰️ relay_tool read_session ses_x ✓"]);

  // Grok's use_tool wraps relay_tool's arguments.
  const g = await create({ provider: "grok" });
  const gr = await relay.say(g, "/relaytool");
  const gm = (await relay.session(g)).messages.find((m: any) => m.id === gr.id).meta;
  assert.deepEqual(gm.activity[0].relay, { action: "list_sessions", relay: "this" });
  // Grok's counts arrive in the prompt response's _meta.
  const gu = await relay.say(g, "/usage 7 3 0");
  assert.deepEqual((await relay.session(g)).messages.find((m: any) => m.id === gu.id).meta.usage, {
    inputTokens: 7,
    outputTokens: 3,
    cachedTokens: 5,
  });
});

test("usage: kept with the reply, per provider meters, and the Claude API spend feeds the cap", async () => {
  await relay.api("PATCH", "/api/settings", { claudeApiMonthlyCapUsd: 1, claudeApiSpentUsd: 0 });
  const id = await create({ provider: "claude-api" });
  const r1 = await relay.say(id, "/usage 100 20 0.25");
  const m1 = (await relay.session(id)).messages.find((m: any) => m.id === r1.id).meta;
  assert.deepEqual(m1.usage, { inputTokens: 100, outputTokens: 20, cachedTokens: 5, costUsd: 0.25 });
  const r2 = await relay.say(id, "/usage 10 2 0.5");
  // The agent reports its session's cumulative cost: each turn keeps its own share.
  assert.equal((await relay.session(id)).messages.find((m: any) => m.id === r2.id).meta.usage.costUsd, 0.5);
  assert.equal((await relay.api("GET", "/api/settings")).json.claudeApiSpentUsd, 0.75);

  const usage = await mcp.call({ action: "usage", relay: "this" });
  const api = usage.providers.find((p: any) => p.id === "claude-api");
  assert.equal(api.status, "tracked");
  const spend = api.meters.find((m: any) => m.unit === "USD");
  assert.equal(spend.used, 0.75);
  assert.equal(spend.limit, 1);
  assert.equal(spend.remaining, 0.25);
  assert.equal(api.meters.find((m: any) => m.unit === "tokens").used, 132);

  await relay.say(id, "/usage 1 1 0.3");
  const info = await mcp.call({ action: "relay_info", relay: "this" });
  const p = info.providers.find((x: any) => x.id === "claude-api");
  assert.equal(p.available, false, "the cap works by itself once the spend reaches it");
  assert.match(p.reason, /monthly cap/);
  await relay.api("PATCH", "/api/settings", { claudeApiMonthlyCapUsd: null });
});

test("errors in words: sign-in, rate limit, a crash, a protocol error; send reports status error with that text", async () => {
  const id = await create({ provider: "grok" });
  const auth = await relay.say(id, "/fail auth");
  assert.match(
    auth.text,
    /^Error: Grok is not signed in on relay "desk": run `grok login` \(or add an xAI API key in Settings → Providers\) as \S+, then send the message again\. The turn did not run\.$/,
  );
  assert.doesNotMatch(auth.text, /Authentication required|-32000/);
  // A sign-in failure while the probe still finds it signed in (a refused key): unavailable
  // from the failure on — also while that probe still runs (it read available then) — and
  // after it, until checked again.
  const grokReason = async () =>
    (await mcp.call({ action: "relay_info", relay: "this" })).providers.find((p: any) => p.id === "grok");
  const refusedMark = /its credentials were refused at the last turn/;
  const during = await grokReason();
  assert.equal(during.available, false, "unavailable at once, not when the probe ends");
  assert.match(during.reason, refusedMark);
  await probed("grok");
  assert.match((await grokReason()).reason, refusedMark);

  const sent = await mcp.call({ action: "send", relay: "this", session: id, text: "/fail rate" });
  assert.equal(sent.status, "error");
  assert.match(
    sent.error,
    /^Grok hit a rate or usage limit \(.*429 Rate limit exceeded.*\)\. Wait a while and send the message again\.$/,
  );

  // Signed out by the time a fresh worker starts: session/new is refused; still words, not a crash.
  writeFileSync(SIGNED_OUT_FILE, "");
  try {
    await relay.api("POST", `/api/sessions/${id}/kill`);
    const atStart = await relay.say(id, "hello");
    assert.match(atStart.text, /^Error: Grok is not signed in on relay "desk": run `grok login`/);
    // The probe that follows finds it signed out (before the login comes back) and says just that.
    await probed("grok");
    const out = await grokReason();
    assert.equal(out.available, false);
    assert.match(out.reason, /^Grok is not signed in on relay "desk"/);
    assert.doesNotMatch(out.reason, refusedMark);
  } finally {
    rmSync(SIGNED_OUT_FILE, { force: true });
  }

  const other = await relay.say(id, "/fail boom");
  assert.match(
    other.text,
    /^Error: Grok reported an error \(ACP error -32603\): .*something broke: boom.*Kill session/,
  );

  const cp = await create({ provider: "copilot" });
  const crash = await relay.say(cp, "/crash");
  assert.match(
    crash.text,
    /^Error: The Copilot agent process exited during the turn \(its last output: fatal: the fake agent crashed on purpose\)\. The next message starts it again/,
  );
  assert.match((await relay.say(cp, "hello")).text, /^echo: hello$/, "the next message starts a fresh worker");

  // Copilot with a refused provider key ends its turn normally, saying so in the reply: an error all the same.
  const refused = await mcp.call({ action: "send", relay: "this", session: cp, text: "/refused-reply" });
  assert.equal(refused.status, "error");
  assert.match(
    refused.error,
    /^Copilot is not signed in on relay "desk": run `copilot login`.* as \S+, then send the message again\./,
  );

  // Checked again (signed in once more): available.
  assert.equal((await relay.api("POST", "/api/providers/grok/check")).json.available, true);
  assert.equal((await relay.api("POST", "/api/providers/copilot/check")).json.available, true);
});

test("Grok: the first prompt waits for its MCP connection (relay_tool) before it runs", async () => {
  const g = await create({ provider: "grok" });
  assert.equal((await relay.say(g, "/mcp")).text, "mcp ready: yes");
});
