// Hardening of the HTTP surfaces (issue 13): bodies bounded while streaming, clients that
// hang up mid-body, Host/Origin checks, the owner token only in the Authorization header,
// own-key argument checks, the advertised tool schema, archived tokens, secret masking.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { request } from "node:http";
import { TestRelay, realSleep } from "./helpers/relay-process.ts";
import { chunkedPost } from "./helpers/raw-http.ts";

let relay: TestRelay;
before(async () => {
  relay = await TestRelay.start({ settings: { maxBodyMb: 1 } });
});
after(() => relay.stop());

/** Raw HTTP so the test controls Host, Origin, chunking and hanging up. */
function raw(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; json: any }> {
  const u = new URL(relay.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, method, path, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (text += d));
      res.on("end", () => {
        let json: any = text;
        try {
          json = JSON.parse(text);
        } catch {}
        resolve({ status: res.statusCode!, json });
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** Sends a chunked body that never ends (40 MB, then nothing): only a relay that counts while reading can answer. */
const endlessChunked = (path: string, headers: Record<string, string>) =>
  chunkedPost(relay.url, path, headers, { mb: 40, end: false, prefix: '{"text":"' });

test("a chunked body over maxBodyMb is refused with a coded 413 while it streams, on /mcp and the owner API", async () => {
  const s = await relay.createSession();
  const entry = (await relay.api("GET", `/api/sessions/${s}/mcp`)).json;
  const mcp = await endlessChunked("/mcp", { ...entry.headers, accept: "application/json, text/event-stream" });
  assert.equal(mcp.status, 413);
  assert.equal(mcp.json.error.data.code, "REMOTE_RELAY_INVALID_INPUT");
  assert.match(mcp.json.error.message, /larger than 1048576 bytes.*Nothing was done\./);
  const owner = await endlessChunked(`/api/sessions/${s}/messages`, { authorization: `Bearer ${relay.token}` });
  assert.equal(owner.status, 413);
  assert.equal(owner.json.code, "REMOTE_RELAY_INVALID_INPUT");
  assert.equal((await relay.session(s)).messages.length, 0, "nothing was sent");
  const peer = await endlessChunked("/peer/v1/pair", {});
  assert.equal(peer.status, 413);
  assert.equal(peer.json.code, "REMOTE_RELAY_INVALID_INPUT");
  // A declared Content-Length over the limit is refused without reading; under it, taken.
  const big = await raw(
    "PATCH",
    "/api/settings",
    { authorization: `Bearer ${relay.token}`, "content-type": "application/json" },
    JSON.stringify({ maxTurnMinutes: 61, pad: "x".repeat(1.2 * 1024 * 1024) }),
  );
  assert.equal(big.status, 413);
  assert.equal((await relay.api("PATCH", "/api/settings", { maxBodyMb: 4 })).json.maxBodyMb, 4);
  assert.equal((await relay.api("GET", "/api/health")).status, 200);
});

test("a client hanging up mid-body is not logged as an unexpected failure", async () => {
  const s = await relay.createSession();
  const entry = (await relay.api("GET", `/api/sessions/${s}/mcp`)).json;
  const before = relay.output.length;
  for (const [path, headers] of [
    [`/api/sessions/${s}/messages`, { authorization: `Bearer ${relay.token}` }],
    ["/mcp", { ...entry.headers, accept: "application/json, text/event-stream" }],
  ] as const) {
    const u = new URL(relay.url);
    const req = request({
      host: u.hostname,
      port: u.port,
      method: "POST",
      path,
      headers: { ...headers, "content-type": "application/json", "content-length": "100000" },
    });
    req.on("error", () => {});
    req.write('{"text":"half');
    await realSleep(300);
    req.destroy();
  }
  await realSleep(500);
  assert.equal((await relay.api("GET", "/api/health")).status, 200);
  const logged = relay.output.slice(before);
  assert.doesNotMatch(logged, /unexpected failure|\n\s+at /, logged);
});

test("Host and Origin: the relay's own host:port and loopback names pass; other hosts and foreign origins get a coded 403", async () => {
  const port = new URL(relay.url).port;
  const auth = { authorization: `Bearer ${relay.token}` };
  for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]) {
    assert.equal((await raw("GET", "/api/settings", { ...auth, host })).status, 200, host);
  }
  for (const path of ["/", "/api/settings", "/api/health", "/mcp"]) {
    const rebound = await raw("GET", path, { ...auth, host: `evil.example:${port}` });
    assert.equal(rebound.status, 403, path);
    assert.equal(rebound.json.code, "REMOTE_RELAY_FORBIDDEN");
    const post = path === "/mcp";
    const foreign = await raw(
      post ? "POST" : "GET",
      path,
      {
        ...auth,
        host: `127.0.0.1:${port}`,
        origin: "https://evil.example",
        ...(post ? { "content-type": "application/json" } : {}),
      },
      post ? "{}" : undefined,
    );
    assert.equal(foreign.status, 403, path);
    assert.equal(foreign.json.code, "REMOTE_RELAY_FORBIDDEN");
    assert.match(foreign.json.error, /evil\.example.*Nothing was done\./);
  }
  assert.equal(
    (await raw("GET", "/api/settings", { ...auth, host: `localhost:${Number(port) + 1}` })).status,
    403,
    "another port",
  );
  // The relay's own page (same origin) passes.
  assert.equal(
    (
      await raw(
        "PATCH",
        "/api/settings",
        { ...auth, host: `127.0.0.1:${port}`, origin: `http://127.0.0.1:${port}`, "content-type": "application/json" },
        "{}",
      )
    ).status,
    200,
  );
  assert.equal(
    (await raw("PATCH", "/api/settings", { ...auth, origin: "null", "content-type": "application/json" }, "{}")).status,
    403,
  );
});

test("the owner token is refused in ?token= URLs; the SSE stream opens with a short-lived ticket", async () => {
  const q = await raw("GET", `/api/settings?token=${relay.token}`, {});
  assert.equal(q.status, 401);
  assert.equal(q.json.code, "REMOTE_RELAY_AUTH");
  assert.equal((await raw("GET", `/api/stream?token=${relay.token}`, {})).status, 401);
  assert.equal((await raw("GET", `/api/stream?ticket=made-up`, {})).status, 401);
  const t = await relay.api("POST", "/api/stream-ticket");
  assert.equal(t.status, 200);
  assert.ok(t.json.ticket && t.json.ticket !== relay.token);
  const ac = new AbortController();
  const res = await fetch(`${relay.url}/api/stream?ticket=${t.json.ticket}`, { signal: ac.signal });
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /text\/event-stream/);
  ac.abort();
  // A ticket opens only the stream, nothing else.
  assert.equal((await raw("GET", `/api/settings?ticket=${t.json.ticket}`, {})).status, 401);
});

test("unknown arguments and settings are own keys only: constructor, valueOf, __proto__ are refused", async () => {
  const s = await relay.createSession();
  const mcp = await relay.mcp(s);
  // (__proto__ never reaches the relay through the MCP SDK: its schema parse drops it.)
  for (const k of ["constructor", "hasOwnProperty", "valueOf", "toString"]) {
    const r = await mcp.call({ action: "create_session", relay: "this", provider: "scripted", [k]: "x" });
    assert.equal(r.code, "REMOTE_RELAY_INVALID_INPUT", `${k}: ${JSON.stringify(r)}`);
    assert.match(r.error, new RegExp(`does not take: ${k.replace(/_/g, "_")}`));
    const l = await mcp.call({ action: "list_sessions", relay: "this", [k]: "x" });
    assert.equal(l.ok, true);
    assert.deepEqual(l.ignored, [k]);
  }
  const before = (await relay.api("GET", "/api/settings")).json;
  for (const body of [
    '{"__proto__":{"agentSessions":false,"maxWorkers":1}}',
    '{"constructor":{"x":1}}',
    '{"valueOf":1}',
    '{"hasOwnProperty":1}',
  ]) {
    const r = await relay.api("PATCH", "/api/settings", body);
    assert.equal(r.status, 400, body);
    assert.equal(r.json.code, "REMOTE_RELAY_INVALID_INPUT");
    assert.match(r.json.error, /^Unknown setting.*Nothing was changed\.$/);
  }
  assert.deepEqual((await relay.api("GET", "/api/settings")).json, before, "nothing changed");
});

test("the advertised schema lists every provider create_session takes, described per action", async () => {
  const s = await relay.createSession();
  const mcp = await relay.mcp(s);
  const { tools } = await mcp.client.listTools();
  const provider = (tools[0].inputSchema.properties as any).provider;
  const accepts = (v: string) =>
    (provider.anyOf ?? [provider]).some((alt: any) => alt.type === "string" && (!alt.enum || alt.enum.includes(v)));
  for (const id of ["scripted", "copilot", "claude", "claude-api", "deepseek"])
    assert.ok(accepts(id), `${id}: ${JSON.stringify(provider)}`);
  assert.match(provider.description, /send: .*\| create_session: /);
});

test("an archived conversation's agent token acts no more: every action answers REMOTE_RELAY_ARCHIVED", async () => {
  const a = await relay.createSession({ title: "Soon archived" });
  const b = await relay.createSession({ title: "Other" });
  const mcp = await relay.mcp(a);
  assert.equal((await mcp.call({ action: "list_sessions", relay: "this" })).ok, true);
  assert.equal((await relay.api("POST", `/api/sessions/${a}/archive`)).status, 200);
  for (const args of [
    { action: "send", relay: "this", session: b, text: "hi", wait_seconds: 0 },
    { action: "ask", question: "Ship?" },
    { action: "list_relays" },
    { action: "create_session", relay: "this", provider: "scripted" },
  ]) {
    const r = await mcp.call(args);
    assert.equal(r.code, "REMOTE_RELAY_ARCHIVED", JSON.stringify(r));
    assert.match(r.error, /archived.*Nothing was done\./);
  }
  assert.equal((await relay.session(b)).messages.length, 0, "nothing reached the other session");
  assert.equal((await relay.api("GET", "/api/inbox")).json.questions.length, 0);
});

test("secrets in message text come back masked: send replies, read_session and the owner API", async () => {
  await relay.api("PATCH", "/api/settings", { deepseekApiKey: "sk-deepseek-0123456789abcdef" });
  const a = await relay.createSession({ title: "Caller" });
  const b = await relay.createSession({ title: "Receiver" });
  const bToken = (await relay.api("GET", `/api/sessions/${b}/mcp`)).json.headers.Authorization.slice("Bearer ".length);
  const mcp = await relay.mcp(a);
  const text = `key sk-deepseek-0123456789abcdef owner ${relay.token} agent ${bToken} glued x${bToken}y`;
  const r = await mcp.call({ action: "send", relay: "this", session: b, text });
  assert.equal(r.status, "done", JSON.stringify(r));
  const all = JSON.stringify(r);
  for (const secret of ["sk-deepseek-0123456789abcdef", relay.token, bToken]) {
    assert.ok(!all.includes(secret), "send reply");
    const read = JSON.stringify(await mcp.call({ action: "read_session", relay: "this", session: b }));
    assert.ok(!read.includes(secret), "read_session");
    const owner = JSON.stringify((await relay.api("GET", `/api/sessions/${b}`)).json);
    assert.ok(!owner.includes(secret), "owner API");
  }
  assert.match(r.reply.text, /key \*\*\*\* owner \*\*\*\* agent \*\*\*\* glued x\*\*\*\*y/);
  // The route that hands out the MCP entry still gives the token: that is its purpose.
  assert.equal((await relay.api("GET", `/api/sessions/${b}/mcp`)).json.headers.Authorization, `Bearer ${bToken}`);
});

test("--test-clock: a one-year step with a 1-minute schedule answers promptly; missed times do not pile up", async () => {
  const a = await relay.createSession({ title: "Every minute" });
  const mcp = await relay.mcp(a);
  const r = await mcp.call({ action: "schedule", title: "tick", every_minutes: 1, text: "tick" });
  assert.equal(r.ok, true, JSON.stringify(r));
  const now = await relay.advance(365 * 24 * 60 * 60_000);
  assert.ok(now);
  const [l] = (await mcp.call({ action: "list_schedules" })).schedules;
  assert.ok(l.firedCount >= 1 && l.firedCount < 100, JSON.stringify(l));
  assert.ok(Date.parse(l.nextFireAt) > Date.parse(now), "the schedule is back on its grid after the step");
  assert.equal((Date.parse(l.nextFireAt) - Date.parse(r.schedule.nextFireAt)) % 60_000, 0, "same grid");
  await mcp.call({ action: "unschedule", schedule_id: r.schedule_id });
});
