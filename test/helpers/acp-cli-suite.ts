// The end-to-end cases every ACP CLI provider of contract §10.2 goes through with its real
// pinned CLI against a local model server (agents-gemini/codex/opencode/qwen.test.ts, and a
// custom agent): one relay per file, shared by its cases, since each CLI start costs seconds.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { TestRelay } from "./relay-process.ts";
import { planPrompt } from "./relay-plan.ts";
import { TURN_MS, createSession, permissionCard, post, relayActivity, replyTo, say, usageOf } from "./agents-e2e.ts";

/** What a suite needs of its model server. */
export interface ModelServer {
  /** The model ids the agent loop asked for since the last reset. */
  modelsAsked(): string[];
  /** What the agent loop's last request sent the model (its conversation), as text. */
  lastSent?(): string;
  reset(): void;
  close(): Promise<void>;
}

export interface CliSuite {
  provider: string;
  name: string;
  skip: string | undefined;
  /** Starts the model server and the relay (its environment pointing the CLI at the server). */
  start(): Promise<{ relay: TestRelay; server: ModelServer }>;
  /** Two models the server serves, as relay model ids: the session starts on `a`, changes to `b`. */
  models: { a: string; b: string };
  capabilities: { loadSession: boolean; resume: boolean; images: boolean; mcpHttp: boolean };
  /** Option kinds its permission request offers, sorted. */
  cardKinds?: string[];
  /** Makes the model server refuse the key (and back): the next turn must fail with `error`. */
  refusedKey?: { refuse(): void; restore(): void; error: RegExp };
  /** The relay kills its worker: the next one continues the conversation through `how`
   * (one CLI runs this: each case costs a cold start). Needs the server's `lastSent`. */
  resumesThrough?: "session/resume" | "session/load";
  /** A relay with nobody signed in (its environment): the provider must read unavailable with `reason`. */
  signedOut?: { env(): Record<string, string | undefined>; reason: RegExp };
}

/** The agent processes the data folder's keeper holds (its children). */
export function keptPids(relay: TestRelay): number[] {
  try {
    const keeper = readFileSync(join(relay.dataDir, "keeper.pid"), "utf8").trim();
    return execFileSync("pgrep", ["-P", keeper], { encoding: "utf8" }).split("\n").filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** The provider's entry in GET /api/providers once a probe has answered (a timed-out probe of
 * a cold start on a busy machine is asked once more, as the owner would with Check again). */
export async function probedProvider(relay: TestRelay, id: string): Promise<any> {
  const p = await relay.waitFor(async () => {
    const e = (await relay.api("GET", "/api/providers")).json.providers?.find((x: any) => x.id === id);
    return e?.checkedAt && !e.checking ? e : undefined;
  }, TURN_MS);
  if (p.available || !/did not answer|did not start/.test(p.reason ?? "")) return p;
  return (await relay.api("POST", `/api/providers/${id}/check`)).json;
}

export function cliSuite(s: CliSuite): { relay: () => TestRelay; session: () => string } {
  const { skip } = s;
  let relay: TestRelay;
  let server: ModelServer;
  let helper: string;
  let session: string;

  before(async () => {
    if (skip) return;
    ({ relay, server } = await s.start());
    helper = await relay.createSession({ title: "Helper" });
  });
  after(async () => {
    await relay?.stop();
    await server?.close();
  });

  test(`${s.name}: the probe finds it signed in, with the models and capabilities its agent advertised`, {
    skip,
    timeout: TURN_MS,
  }, async () => {
    const p = await probedProvider(relay, s.provider);
    assert.equal(p.available, true, p.reason);
    assert.ok(p.models.includes(s.models.a) && p.models.includes(s.models.b), JSON.stringify(p.models));
    assert.deepEqual(p.capabilities, s.capabilities);
  });

  test(`${s.name}: agent mode: it calls relay_tool, sends to a scripted session, and the reply reaches the owner with its usage; no card`, {
    skip,
    timeout: 2 * TURN_MS,
  }, async () => {
    server.reset();
    session = await createSession(relay, { provider: s.provider, model: s.models.a, title: `${s.name} worker` });
    const reply = await say(
      relay,
      session,
      planPrompt([
        { action: "list_sessions", relay: "this" },
        { action: "send", relay: "this", session: helper, text: `/reply pong for ${s.provider}`, wait_seconds: 90 },
      ]),
    );
    assert.notEqual(reply.meta?.status, "error", reply.meta?.error ?? reply.text);
    assert.match(reply.text, /step 1: sessions=\d+/);
    assert.match(reply.text, new RegExp(`step 2: status=done reply="pong for ${s.provider}`));
    assert.equal((await relay.api("GET", `/api/cards?session=${session}`)).json.cards.length, 0);
    const h = await relay.session(helper);
    assert.ok(
      h.messages.some((m: any) => m.from?.session === session && new RegExp(`pong for ${s.provider}`).test(m.text)),
    );
    assert.equal(relayActivity(reply, "send")?.status, "completed", JSON.stringify(reply.meta?.activity));
    assert.deepEqual([...new Set(server.modelsAsked())], [s.models.a]);
    assert.ok(
      reply.meta?.usage?.inputTokens > 0 && reply.meta.usage.outputTokens > 0,
      JSON.stringify(reply.meta?.usage),
    );
    assert.equal((await usageOf(relay, s.provider)).status, "tracked");
  });

  test(`${s.name}: ask mode: its permission request is a card; Allow runs the tool`, {
    skip,
    timeout: 2 * TURN_MS,
  }, async () => {
    assert.equal((await relay.api("PATCH", `/api/sessions/${session}`, { mode: "ask" })).status, 200);
    const m = await post(relay, session, planPrompt([{ action: "list_sessions", relay: "this" }]));
    const card = await permissionCard(relay, session);
    if (s.cardKinds) assert.deepEqual(card.options.map((o: any) => o.kind).sort(), s.cardKinds);
    const allowed = await relay.api("POST", `/api/cards/${card.id}`, { decision: "allow" });
    assert.equal(allowed.json.status, "allowed");
    assert.equal(card.options.find((o: any) => o.id === allowed.json.optionId)?.kind, "allow_once");
    assert.match((await replyTo(relay, session, m)).text, /step 1: sessions=\d+/);
  });

  test(`${s.name}: after a relay SIGKILL the kept worker is taken back and answers the next prompt`, {
    skip,
    timeout: 2 * TURN_MS,
  }, async () => {
    // Its worker (and the scripted helper's, when the send reached it).
    const pids = keptPids(relay).sort();
    assert.ok(pids.length >= 1, "its agent process is with the keeper");
    await relay.restart({ samePort: true });
    // Its model list is the one the probe at start reads from the agent.
    await probedProvider(relay, s.provider);
    assert.equal((await relay.api("PATCH", `/api/sessions/${session}`, { mode: "agent" })).status, 200);
    server.reset();
    const reply = await say(
      relay,
      session,
      planPrompt([{ action: "list_sessions", relay: "this" }], "After the restart: list the sessions with relay_tool."),
    );
    assert.notEqual(reply.meta?.status, "error", reply.meta?.error ?? reply.text);
    assert.match(reply.text, /step 1: sessions=\d+/);
    assert.deepEqual(keptPids(relay).sort(), pids, "the same agent process ran the turn");
  });

  test(`${s.name}: a model change reaches the model server`, { skip, timeout: 2 * TURN_MS }, async () => {
    assert.equal((await relay.api("PATCH", `/api/sessions/${session}`, { model: s.models.b })).status, 200);
    server.reset();
    const reply = await say(relay, session, "Say hello.");
    assert.notEqual(reply.meta?.status, "error", reply.meta?.error ?? reply.text);
    assert.deepEqual([...new Set(server.modelsAsked())], [s.models.b], reply.text);
    // Its usage, however it reports it (reported-usage.ts), is kept with the reply.
    assert.ok(
      reply.meta?.usage?.inputTokens > 0 && reply.meta.usage.outputTokens > 0,
      JSON.stringify(reply.meta?.usage),
    );
  });

  if (s.resumesThrough) {
    const how = s.resumesThrough;
    test(`${s.name}: Kill session: the next worker continues the conversation through ${how}, and the session says resumed`, {
      skip,
      timeout: 2 * TURN_MS,
    }, async () => {
      assert.equal((await relay.session(session)).agentStart.how, "new");
      const pids = keptPids(relay);
      assert.equal((await relay.api("POST", `/api/sessions/${session}/kill`)).json.killed, true);
      server.reset();
      const reply = await say(relay, session, "Say hello once more.");
      assert.notEqual(reply.meta?.status, "error", reply.meta?.error ?? reply.text);
      assert.ok(
        keptPids(relay).some((p) => !pids.includes(p)),
        "a new agent process ran the turn",
      );
      // The model is sent the conversation before the kill (the model change case's prompt).
      assert.match(server.lastSent!(), /Say hello\..*Say hello once more\./s);
      const start = (await relay.session(session)).agentStart;
      assert.equal(start.how, "resumed", start.note);
      assert.equal(start.note, `continued through ${how}`);
    });
  }

  if (s.refusedKey) {
    const k = s.refusedKey;
    test(`${s.name}: a refused key ends the turn with the sign-in reason in words`, {
      skip,
      timeout: 2 * TURN_MS,
    }, async () => {
      k.refuse();
      try {
        const reply = await say(relay, session, "Say hello.");
        assert.equal(reply.meta?.status, "error", reply.text);
        assert.match(reply.meta.error, k.error);
      } finally {
        k.restore();
      }
    });
  }

  if (s.signedOut) {
    const out = s.signedOut;
    test(`${s.name}: nobody signed in: unavailable with the command to run, and a session on it is refused`, {
      skip,
      timeout: 2 * TURN_MS,
    }, async () => {
      const bare = await TestRelay.start({ name: "bare", env: out.env() });
      try {
        const p = await probedProvider(bare, s.provider);
        assert.equal(p.available, false);
        assert.match(p.reason, out.reason);
        const refused = await bare.api("POST", "/api/sessions", { provider: s.provider, title: "unsigned" });
        assert.equal(refused.json.code, "REMOTE_RELAY_PROVIDER_UNAVAILABLE");
      } finally {
        await bare.stop();
      }
    });
  }

  return { relay: () => relay, session: () => session };
}
