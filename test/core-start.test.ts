// Starting the relay (contract §1), the owner token and its checks (§3, §8), the manual
// test clock (§7), and bad input on the owner API: coded, nothing changed, daemon alive.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { statSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import "./helpers/core-helpers.ts"; // generous waits on a shared machine
import { TestRelay } from "./helpers/relay-process.ts";

let relay: TestRelay;
before(async () => {
  relay = await TestRelay.start({ name: "desk" });
});
after(() => relay.stop());

test("start prints the listening line and a UI link carrying the owner token in its fragment", () => {
  const port = new URL(relay.url).port;
  assert.match(
    relay.output,
    new RegExp(`^OAR 0\\.9\\.19 relay "desk" listening on http://127\\.0\\.0\\.1:${port}$`, "m"),
  );
  const link = relay.output.split("\n").find((l) => l.includes("#token="));
  assert.ok(link, relay.output);
  assert.ok(link.endsWith(`#token=${relay.token}`), link);
  // The token shows once: in that link and nowhere else of the output.
  assert.equal(relay.output.split(relay.token).length - 1, 1);
});

test("DIR/owner-token is created with mode 0600 and holds the token the API accepts", async () => {
  const file = join(relay.dataDir, "owner-token");
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.equal(readFileSync(file, "utf8").trim(), relay.token);
  assert.equal((await relay.api("GET", "/api/settings")).status, 200);
});

test("health needs no token and says only ok, name, version", async () => {
  const r = await fetch(`${relay.url}/api/health`);
  assert.equal(r.status, 200);
  assert.deepEqual(await r.json(), { ok: true, name: "desk", version: "0.9.19" });
});

test("the owner API answers 401 without the token or with a wrong one, and does nothing", async () => {
  const before = (await relay.api("GET", "/api/sessions")).json.sessions.length;
  for (const headers of [
    {} as Record<string, string>,
    { authorization: "Bearer wrong" },
    { authorization: `Bearer ${relay.token}x` },
    { authorization: relay.token },
  ]) {
    for (const [method, path, body] of [
      ["GET", "/api/sessions", undefined],
      ["GET", "/api/settings", undefined],
      ["POST", "/api/sessions", JSON.stringify({ provider: "scripted" })],
      ["PATCH", "/api/settings", JSON.stringify({ agentSessions: false })],
    ] as const) {
      const r = await fetch(relay.url + path, {
        method,
        headers: { "content-type": "application/json", ...headers },
        body,
      });
      assert.equal(r.status, 401, `${method} ${path} ${JSON.stringify(headers)}`);
      const j = await r.json();
      assert.equal(j.ok, false);
      assert.equal(typeof j.code, "string");
    }
  }
  assert.equal((await relay.api("GET", "/api/sessions")).json.sessions.length, before);
  assert.equal((await relay.api("GET", "/api/settings")).json.agentSessions, true);
});

test("/mcp answers 401 without an agent token or with a wrong one (the owner token is not one)", async () => {
  const init = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
  });
  for (const auth of [undefined, "Bearer nope", `Bearer ${relay.token}`]) {
    const r = await fetch(`${relay.url}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...(auth ? { authorization: auth } : {}),
      },
      body: init,
    });
    assert.equal(r.status, 401, String(auth));
    assert.equal(r.headers.get("mcp-session-id"), null);
  }
});

test("POST /api/test/clock moves the manual clock forward, and back with set", async () => {
  const start = Date.parse((await relay.api("POST", "/api/test/clock", { advanceMs: 0 })).json.now);
  const later = await relay.advance(90_000);
  assert.equal(Date.parse(later), start + 90_000);
  const earlier = await relay.setClock("2024-01-02T03:04:05.000Z");
  assert.equal(earlier, "2024-01-02T03:04:05.000Z");
  // The clock stands still between steps: a message's time is the clock's.
  const id = await relay.createSession({ title: "clocked" });
  const s = await relay.session(id);
  assert.equal(s.lastActivityAt, "2024-01-02T03:04:05.000Z");
  const back = await relay.setClock(new Date(start + 90_000).toISOString());
  assert.equal(Date.parse(back), start + 90_000);
});

test("a bad clock step is refused and the clock does not move", async () => {
  const now = (await relay.api("POST", "/api/test/clock", { advanceMs: 0 })).json.now;
  for (const body of [{}, { advanceMs: -5 }, { advanceMs: "10" }, { set: "not a time" }, { set: 12 }]) {
    const r = await relay.api("POST", "/api/test/clock", body);
    assert.equal(r.status, 400, JSON.stringify(body));
    assert.equal(r.json.code, "REMOTE_RELAY_INVALID_INPUT");
  }
  assert.equal((await relay.api("POST", "/api/test/clock", { advanceMs: 0 })).json.now, now);
});

test("without --test-clock the clock route is 404 and the relay runs on real time", async () => {
  const real = await TestRelay.start({ name: "realtime", testClock: false });
  try {
    const r = await real.api("POST", "/api/test/clock", { advanceMs: 1000 });
    assert.equal(r.status, 404);
    assert.equal(r.json.ok, false);
    assert.doesNotMatch(real.output, /Manual test clock/);
    const id = await real.createSession();
    const at = Date.parse((await real.session(id)).lastActivityAt);
    assert.ok(Math.abs(at - Date.now()) < 60_000);
  } finally {
    await real.stop();
  }
});

test("malformed owner API bodies are coded refusals that change nothing", async () => {
  const count = async () => (await relay.api("GET", "/api/sessions?scope=all")).json.sessions.length;
  const n = await count();
  const settings = (await relay.api("GET", "/api/settings")).json;
  const cases: [string, string, unknown][] = [
    ["POST", "/api/sessions", "{not json"],
    ["POST", "/api/sessions", "[1,2]"],
    ["POST", "/api/sessions", '"text"'],
    ["POST", "/api/sessions", { provider: "scripted", bogus: 1 }],
    ["POST", "/api/sessions", { provider: "nope" }],
    ["POST", "/api/sessions", { provider: "scripted", model: "scripted-9" }],
    ["POST", "/api/sessions", { provider: "scripted", cwd: "/no/such/dir" }],
    ["POST", "/api/sessions", { provider: "scripted", mode: "yolo" }],
    ["POST", "/api/sessions", { provider: 7 }],
    ["POST", "/api/sessions", { provider: "scripted", text: "x".repeat(1_100_000) }],
    ["PATCH", "/api/settings", "{"],
    ["PATCH", "/api/settings", { agentSessions: "yes" }],
    ["PATCH", "/api/settings", { longestWaitMinutes: 61 }],
    ["PATCH", "/api/settings", { longestWaitMinutes: 1 }],
    ["PATCH", "/api/settings", { agentSessions: false, colour: "red" }],
  ];
  for (const [method, path, body] of cases) {
    const r = await relay.api(method, path, body);
    assert.ok(
      r.status >= 400 && r.status < 500,
      `${method} ${path} ${JSON.stringify(body).slice(0, 80)} → ${r.status}`,
    );
    assert.equal(r.json.ok, false);
    assert.match(r.json.code, /^REMOTE_RELAY_[A-Z_]+$/);
    assert.match(r.json.error, /Nothing was (created|changed|done)\.$/, r.json.error);
  }
  assert.equal(await count(), n);
  assert.deepEqual((await relay.api("GET", "/api/settings")).json, settings);
});

test("unknown ids and fields on session routes are coded; the session is unchanged", async () => {
  const id = await relay.createSession({ title: "kept" });
  for (const [method, path] of [
    ["GET", "/api/sessions/ses_nope"],
    ["PATCH", "/api/sessions/ses_nope"],
    ["POST", "/api/sessions/ses_nope/messages"],
    ["POST", "/api/sessions/ses_nope/stop"],
    ["POST", "/api/sessions/ses_nope/archive"],
    ["DELETE", "/api/sessions/ses_nope"],
    ["POST", "/api/sessions/ses_nope/kill"],
    ["GET", "/api/sessions/ses_nope/mcp"],
    ["GET", `/api/sessions/${id}/tasks/tsk_nope/output`],
    ["POST", "/api/cards/card_nope"],
    ["GET", "/api/no-such-route"],
  ]) {
    const r = await relay.api(
      method,
      path,
      method === "GET" || method === "DELETE" ? undefined : { text: "hi", decision: "allow" },
    );
    assert.equal(r.status, 404, `${method} ${path}`);
    assert.equal(r.json.code, "REMOTE_RELAY_NOT_FOUND", `${method} ${path}`);
  }
  const bad: [Record<string, unknown>, string][] = [
    [{ mayCreateSessions: "yes" }, "INVALID_INPUT"],
    [{ title: "" }, "INVALID_INPUT"],
    [{ owner: "me" }, "INVALID_INPUT"],
    [{ model: "scripted-7" }, "UNKNOWN_MODEL"],
    [{ cwd: "relative/dir" }, "INVALID_INPUT"],
    [{ effort: "huge" }, "INVALID_INPUT"],
  ];
  for (const [body, code] of bad) {
    const r = await relay.api("PATCH", `/api/sessions/${id}`, body);
    assert.equal(r.status, 400, JSON.stringify(body));
    assert.equal(r.json.code, `REMOTE_RELAY_${code}`);
  }
  for (const body of [{}, { text: "" }, { text: 5 }, { text: "hi", extra: 1 }]) {
    const r = await relay.api("POST", `/api/sessions/${id}/messages`, body);
    assert.equal(r.status, 400, JSON.stringify(body));
  }
  const s = await relay.session(id);
  assert.equal(s.title, "kept");
  assert.equal(s.mayCreateSessions, false);
  assert.equal(s.messages.length, 0);
  assert.equal((await fetch(`${relay.url}/api/health`)).status, 200);
});

test("bad command lines are refused with a message and a non-zero exit; --version prints the version", () => {
  const bin = join(import.meta.dirname, "..", "bin", "oar");
  const run = (...args: string[]) => spawnSync(bin, args, { encoding: "utf8", timeout: 60_000 });
  for (const args of [
    ["start", "--port", "notaport"],
    ["start", "--port", "70000"],
    ["start", "--emulate-version", "1.2"],
    ["start", "--colour", "red"],
    ["launch"],
  ]) {
    const r = run(...args);
    assert.notEqual(r.status, 0, args.join(" "));
    assert.match(r.stderr, /oar|Usage/, args.join(" "));
  }
  const v = run("--version");
  assert.equal(v.status, 0);
  assert.equal(v.stdout.trim(), "0.9.19");
  // Help asked for is no error: the usage on stdout, exit 0; an unknown command is (exit 2).
  for (const args of [["--help"], ["help"], ["-h"], ["start", "--help"], ["backup", "-h"]]) {
    const h = run(...args);
    assert.equal(h.status, 0, args.join(" "));
    assert.match(
      h.stdout,
      /^Usage:\n {2}oar start .*\n {2}oar tls init \[--data DIR\] +makes a self-signed certificate.*\n {2}oar url \[--data DIR\] +prints the web UI link/m,
      args.join(" "),
    );
  }
  const unknown = run("launch");
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /^oar: unknown command "launch"\nUsage:\n/);
});
