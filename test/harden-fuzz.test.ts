// Property-based fuzzing (issue 13) of every relay_tool action (from the registry) and every
// owner route, with a fixed seed and a bounded count: every answer is coded, the relay never
// crashes (it still answers /api/health) and a refused call changes nothing in the store.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import Database from "better-sqlite3";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { TestRelay, type McpSession } from "./helpers/relay-process.ts";
import { ACTIONS } from "../src/actions/registry.ts";
import { ERROR_CODES } from "../src/core/errors.ts";

const SEED = 1313;
const RELAY_TOOL_RUNS = 250;
const OWNER_RUNS = 300;

let relay: TestRelay;
let mcp: McpSession;
let db: Database.Database;
const ids: Record<string, string> = {};

before(async () => {
  relay = await TestRelay.start();
  ids.caller = await relay.createSession({ title: "Fuzz caller" });
  ids.target = await relay.createSession({ title: "Fuzz target" });
  ids.other = await relay.createSession({ title: "Fuzz other" });
  ids.archived = await relay.createSession({ title: "Fuzz archived" });
  await relay.api("POST", `/api/sessions/${ids.archived}/archive`);
  mcp = await relay.mcp(ids.caller);
  db = new Database(join(relay.dataDir, "oar.db"), { readonly: true });
});
after(async () => {
  db?.close();
  await relay.stop();
});

// The store's durable state: every table but the bookkeeping ones, hashed.
function snapshot(): string {
  const h = createHash("sha256");
  const tables = (
    db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT IN ('migrations') ORDER BY name")
      .all() as { name: string }[]
  ).map((r) => r.name);
  for (const t of tables) {
    h.update(t);
    const rows = (db.prepare(`SELECT * FROM "${t}"`).raw().all() as unknown[]).map((r) => JSON.stringify(r)).sort();
    for (const row of rows) h.update(row);
  }
  return h.digest("hex");
}

/** Waits until no turn is queued or running, so background work does not look like a change. */
async function settle(): Promise<void> {
  await relay
    .waitFor(
      () =>
        (db.prepare("SELECT COUNT(*) FROM turns WHERE status IN ('queued', 'running')").pluck().get() as number) === 0,
      30_000,
    )
    .catch(async () => {
      // A turn that hangs (a fuzzed /hang) is stopped: the next call must start from rest.
      for (const id of db
        .prepare("SELECT DISTINCT session_id FROM turns WHERE status IN ('queued', 'running')")
        .pluck()
        .all() as string[])
        await relay.api("POST", `/api/sessions/${id}/stop`);
    });
}

const CODES = new Set<string>(ERROR_CODES);
const id = () =>
  fc.constantFrom(ids.caller, ids.target, ids.other, ids.archived, "ses_000000000000", "", "../../etc/passwd");
const junk = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string({ maxLength: 10 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 3 }),
  fc.constantFrom("constructor", "__proto__", "toString", "all", "this", "-1", "1e309", "\u0000", "🙂".repeat(50)),
);
/** A value for an argument of the given name: mostly plausible, sometimes junk. */
function valueFor(name: string): fc.Arbitrary<unknown> {
  const plausible: Record<string, fc.Arbitrary<unknown>> = {
    session: id(),
    from: id(),
    watcher: id(),
    relay: fc.constantFrom("this", "desk", "elsewhere", ""),
    text: fc.oneof(
      fc.string({ minLength: 1, maxLength: 60 }),
      fc.constantFrom("hello", "/reply ok", "/error boom", "/model"),
    ),
    wait_seconds: fc.constant(0),
    provider: fc.constantFrom("scripted", "claude", "claude-api", "copilot", "nope"),
    model: fc.constantFrom("scripted-1", "scripted-2", "gpt-0"),
    mode: fc.constantFrom("agent", "ask", "plan", "yolo"),
    effort: fc.constantFrom("low", "max", "extreme"),
    scope: fc.constantFrom("active", "all", "some"),
    sessions: fc.oneof(fc.constant(["all"]), fc.array(id(), { maxLength: 2 })),
    every_minutes: fc.integer({ min: -2, max: 100_000 }),
    at: fc.oneof(
      fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
      fc.string({ maxLength: 12 }),
    ),
    lines: fc.integer({ min: -5, max: 1000 }),
    last: fc.integer({ min: -5, max: 1000 }),
    cwd: fc.constantFrom("/tmp", "/nonexistent/x", "relative"),
  };
  return fc.oneof(
    { weight: 3, arbitrary: plausible[name] ?? fc.string({ maxLength: 30 }) },
    { weight: 1, arbitrary: junk },
  );
}

const call = fc.oneof(
  {
    weight: 9,
    arbitrary: fc.constantFrom(...ACTIONS).chain((a) =>
      fc.record({
        action: fc.constant(a.name),
        args: fc
          .subarray(["relay", ...Object.keys(a.args)])
          .chain((names) => fc.tuple(...names.map((n) => valueFor(n).map((v) => [n, v] as const)))),
        extra: fc.option(fc.tuple(fc.constantFrom("constructor", "valueOf", "hasOwnProperty", "bogus"), junk), {
          nil: undefined,
        }),
      }),
    ),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      action: fc.oneof(fc.string({ maxLength: 20 }), fc.constant(undefined as unknown as string)),
      args: fc.constant([] as (readonly [string, unknown])[]),
      extra: fc.constant(undefined),
    }),
  },
);

test("relay_tool: every action, fuzzed: coded answers only, no crash, no state change on refusal", async () => {
  let refused = 0;
  await fc.assert(
    fc.asyncProperty(call, async ({ action, args, extra }) => {
      const input: Record<string, unknown> = { action };
      for (const [k, v] of args) input[k] = v;
      if (extra) input[extra[0]] = extra[1];
      // Blocking waits would only wait on the manual clock: every prompt returns at once.
      if (["send", "create_session", "wait"].includes(action)) input.wait_seconds = 0;
      await settle();
      const before = snapshot();
      const r = await mcp.call(input);
      assert.equal(typeof r.ok, "boolean", JSON.stringify(r));
      if (r.ok === false) {
        refused++;
        assert.ok(CODES.has(r.code), `uncoded: ${JSON.stringify(r)} for ${JSON.stringify(input)}`);
        assert.equal(typeof r.error, "string");
        assert.notEqual(
          r.code,
          "REMOTE_RELAY_BUSY",
          `an unexpected failure: ${JSON.stringify(r)} for ${JSON.stringify(input)}`,
        );
        assert.equal(
          snapshot(),
          before,
          `a refused call changed the store: ${JSON.stringify(input)} → ${JSON.stringify(r)}`,
        );
      }
    }),
    { seed: SEED, numRuns: RELAY_TOOL_RUNS, endOnFailure: true, includeErrorInReport: true },
  );
  assert.ok(refused > RELAY_TOOL_RUNS / 10, `some calls were refused (${refused})`);
  assert.equal((await relay.api("GET", "/api/health")).status, 200);
  assert.equal(relay.proc.exitCode, null);
});

// Every owner route of contract §3 (and the page's own), with ids and bodies fuzzed.
const ROUTES: [string, string][] = [
  ["GET", "/api/settings"],
  ["PATCH", "/api/settings"],
  ["POST", "/api/sessions"],
  ["GET", "/api/sessions"],
  ["GET", "/api/sessions/:id"],
  ["PATCH", "/api/sessions/:id"],
  ["POST", "/api/sessions/:id/messages"],
  ["POST", "/api/sessions/:id/stop"],
  ["POST", "/api/sessions/:id/archive"],
  ["DELETE", "/api/sessions/:id"],
  ["POST", "/api/sessions/:id/kill"],
  ["POST", "/api/sessions/:id/compact"],
  ["GET", "/api/sessions/:id/mcp"],
  ["GET", "/api/sessions/:id/tasks/:id/output"],
  ["GET", "/api/cards"],
  ["POST", "/api/cards/:id"],
  ["GET", "/api/inbox"],
  ["POST", "/api/questions/:id"],
  ["GET", "/api/groups"],
  ["POST", "/api/groups"],
  ["PATCH", "/api/groups/:id"],
  ["DELETE", "/api/groups/:id"],
  ["DELETE", "/api/subscriptions/:id"],
  ["DELETE", "/api/schedules/:id"],
  ["GET", "/api/subscriptions"],
  ["GET", "/api/schedules"],
  ["GET", "/api/usage"],
  ["POST", "/api/test/clock"],
  ["GET", "/api/nowhere"],
];
const BODY_KEYS = [
  "text",
  "provider",
  "model",
  "mode",
  "effort",
  "title",
  "cwd",
  "name",
  "decision",
  "choice",
  "answer",
  "dismiss",
  "mayCreateSessions",
  "advanceMs",
  "set",
  "longestWaitMinutes",
  "maxTurnMinutes",
  "quietAfterMinutes",
  "maxBodyMb",
  "taskOutputMaxMb",
  "constructor",
  "__proto__",
  "valueOf",
];
const ownerCall = fc.record({
  route: fc.constantFrom(...ROUTES),
  // The caller and the target stay: deleting or archiving them would only end the run early.
  pathId: fc.constantFrom(
    ids_other_placeholder(),
    "ses_000000000000",
    "x%2F..",
    "%00",
    "card_x",
    "grp_x",
    "ask_x",
    "sub_x",
    "sch_x",
  ),
  body: fc.oneof(
    fc.dictionary(
      fc.constantFrom(...BODY_KEYS),
      fc.oneof(junk, fc.constantFrom("scripted", "allow", "deny", "agent", "hello"), fc.integer({ min: 0, max: 120 })),
      { maxKeys: 4 },
    ),
    fc.constantFrom("not json", "[]", "null", "42", '"x"', ""),
  ),
});
// The id is read at run time (ids are made in before()).
function ids_other_placeholder(): string {
  return ":other";
}

test("owner routes, fuzzed: coded refusals only (never a 5xx), no crash, no state change on refusal", async () => {
  let refused = 0;
  await fc.assert(
    fc.asyncProperty(ownerCall, async ({ route: [method, path], pathId, body }) => {
      const realId = pathId === ":other" ? ids.other : pathId;
      const url = path.replace(/:id/g, realId);
      // Keep the fuzz able to go on: agent sessions stay on, the clock moves at most an hour.
      let sent: unknown = body;
      if (typeof body === "object" && body) {
        const b = { ...(body as Record<string, unknown>) };
        if (typeof b.advanceMs === "number") b.advanceMs = Math.min(b.advanceMs, 3_600_000);
        delete b.set;
        sent = b;
      }
      await settle();
      const before = snapshot();
      const r = await relay.api(method, url, method === "GET" || method === "DELETE" ? undefined : sent);
      assert.ok(r.status < 500, `${method} ${url} ${JSON.stringify(sent)} → ${r.status} ${JSON.stringify(r.json)}`);
      if (r.status >= 400) {
        refused++;
        assert.equal(r.json?.ok, false, `${method} ${url} → ${JSON.stringify(r.json)}`);
        assert.ok(CODES.has(r.json.code), `uncoded: ${method} ${url} → ${JSON.stringify(r.json)}`);
        assert.equal(
          snapshot(),
          before,
          `a refused call changed the store: ${method} ${url} ${JSON.stringify(sent)} → ${JSON.stringify(r.json)}`,
        );
      }
      if (method === "DELETE" && url === `/api/sessions/${ids.other}` && r.status === 200)
        ids.other = await relay.createSession({ title: "Fuzz other" });
    }),
    { seed: SEED, numRuns: OWNER_RUNS, endOnFailure: true, includeErrorInReport: true },
  );
  assert.ok(refused > OWNER_RUNS / 10, `some calls were refused (${refused})`);
  assert.equal((await relay.api("GET", "/api/health")).status, 200);
  assert.equal((await relay.api("GET", "/api/settings")).json.agentSessions, true);
  assert.equal(relay.proc.exitCode, null);
  assert.doesNotMatch(relay.output, /unexpected failure/, relay.output.slice(-3000));
});
