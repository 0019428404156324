// A turn's prompt is recorded as sent (`turns.prompted_at`, what Turns.recover goes by after a
// crash) on both paths: a worker that had to start first (written just before the prompt) and
// a warm idle worker (written with the turn's start, in the same statement: issue 18 item 22).
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import Database from "better-sqlite3";
import { TestRelay } from "./helpers/relay-process.ts";

let relay: TestRelay;
before(async () => {
  relay = await TestRelay.start({ testClock: false });
});
after(() => relay.stop());

test("a prompt is recorded as sent whether its worker started for it or was warm; a queued turn is not until it starts", async () => {
  const s = await relay.createSession({ title: "prompted" });
  assert.equal((await relay.say(s, "cold", 90_000)).text, "echo: cold");
  assert.equal((await relay.say(s, "warm", 90_000)).text, "echo: warm");
  // A turn queued behind a running one has not been prompted; it is once it runs.
  await relay.api("POST", `/api/sessions/${s}/messages`, { text: "/reply first\n/hang" });
  await relay.api("POST", `/api/sessions/${s}/messages`, { text: "second" });
  const db = new Database(join(relay.dataDir, "oar.db"), { readonly: true });
  try {
    const rows = () =>
      db.prepare("SELECT status, started_at, prompted_at FROM turns ORDER BY queued_at, rowid").all() as {
        status: string;
        started_at: number | null;
        prompted_at: number | null;
      }[];
    await relay.waitFor(async () => (await relay.session(s)).inFlight?.text.includes("first"), 90_000);
    const queued = await relay.waitFor(() => (rows()[3]?.status === "queued" ? rows() : undefined), 90_000);
    assert.equal(queued[2].status, "running");
    assert.equal(queued[3].prompted_at, null, "queued: not prompted");
    await relay.api("POST", `/api/sessions/${s}/stop`);
    const done = await relay.waitFor(
      () => (rows().every((r) => r.status === "done" || r.status === "stopped") ? rows() : undefined),
      90_000,
    );
    assert.deepEqual(
      done.map((r) => r.status),
      ["done", "done", "stopped", "done"],
    );
    for (const r of done) {
      assert.ok(r.prompted_at != null && r.started_at != null && r.prompted_at >= r.started_at, JSON.stringify(r));
    }
  } finally {
    db.close();
  }
  const texts = (await relay.session(s)).messages.filter((m: any) => m.role === "agent").map((m: any) => m.text);
  assert.deepEqual(texts, ["echo: cold", "echo: warm", "first", "echo: second"]);
});
