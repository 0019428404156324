// Idle memory (issue 18, item 21): V8 grows its young generation under load and, once its
// memory reducer has run after start, never shrinks it again on a relay that goes idle: 1,000
// sessions created left the relay 20–45 MB above its fresh size for good. The relay now marks
// every request and bus event as activity, and once nothing has happened for 10 s of its clock
// it runs one low-memory collection (src/core/memory-trim.ts) and logs what it gave back.
// SQLite's page cache, the one thing that grows with the store, is bounded (src/store/db.ts).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDb } from "../src/store/db.ts";
import { TestRelay } from "./helpers/relay-process.ts";

const TRIM =
  /^\[memory\] quiet since (\S+), at (\S+): V8 heap ([\d.]+) → ([\d.]+) MB, young generation ([\d.]+) → ([\d.]+) MB/gm;

test("after a burst of created sessions, 10 s of quiet since the last request gives the grown heap back, once", async (t) => {
  const relay = await TestRelay.start();
  t.after(() => relay.kill());
  for (let i = 0; i < 200; i++) await relay.createSession({ title: `burst ${i}` });
  // Every request is activity, the clock's steps too (at the time they start from): two steps
  // of 9 s are never 10 s of quiet; only the step of 10 s is.
  const t0 = Date.parse(await relay.advance(0));
  await relay.advance(9_000);
  await relay.advance(9_000);
  await relay.advance(10_000);
  await relay.waitFor(() => relay.output.includes("[memory]"));
  const trims = [...relay.output.matchAll(TRIM)];
  assert.equal(trims.length, 1, relay.output);
  const [, quietSince, at, heapBefore, heapAfter, youngBefore, youngAfter] = trims[0];
  assert.equal(Date.parse(quietSince), t0 + 18_000, "quiet counts from the last request, not the first");
  assert.equal(Date.parse(at), t0 + 28_000, "the trim runs as soon as 10 s have passed without a request");
  assert.ok(Number(heapAfter) < Number(heapBefore), `the heap shrank: ${trims[0][0]}`);
  assert.ok(Number(youngAfter) < Number(youngBefore), `the young generation shrank: ${trims[0][0]}`);
});

test("the store's page cache is held to 4 MB: better-sqlite3's 16 MB kept every page one search read", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "oar-page-cache-"));
  const db = openDb(join(dir, "oar.db"));
  t.after(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  assert.equal(db.pragma("cache_size", { simple: true }), -4000);
});
