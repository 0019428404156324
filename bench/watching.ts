// Watching bench (issue 5, "How it is shown"): 100 watchers × 1,000 watched sessions,
// 10,000 events, on the real clock. Drives the domain in-process: a relay built by
// src/app/build.ts on a temp data dir, with a turn runner that ends every turn at once (no
// agent processes: what is measured is the relay's watching, not a model).
//
//   - CPU per event: process CPU spent inside the watching domain (its bus listener and
//     its delivery timers, including writing the watchers' messages), over the events.
//     The whole process's CPU per event (turns, bus, everything) is shown beside it.
//   - Delay: from a window's due time (gathering window, digest, end of quiet hours) to
//     the moment its message is written, on the real clock.
//
// Setup: each watcher holds one subscription to 10 of the 1,000 sessions (default
// events): 60 plain (30-second gathering window), 20 with digest_minutes 1 or 2, 20 with
// quiet hours (UTC) ending at one of two minute boundaries from about a minute after the
// start (ten watchers share each end, as watchers in one time zone do). Events are
// turn ends, 10 per session, one at a time, paced evenly over EVENT_SECONDS.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { buildRelay } from "../src/app/build.ts";
import { loadLine, machineLine, summarize, table, withinTarget, type Row } from "./lib/stats.ts";

const WATCHERS = 100;
const SESSIONS = 1_000;
const EVENTS = 10_000;
const EVENT_SECONDS = Number(process.env.WATCH_BENCH_SECONDS ?? 45);
const DEADLINE_MS = 240_000;
const TURN_MS = 2_000;

const started = Date.now();
const log = (s: string) => console.log(`[watching ${((Date.now() - started) / 1000).toFixed(1).padStart(5)} s] ${s}`);
const dataDir = mkdtempSync(join(tmpdir(), "oar-bench-watch-"));
const watchdog = setTimeout(() => {
  console.error(`watching bench: over ${DEADLINE_MS / 1000} s, stopping`);
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(1);
}, DEADLINE_MS);

const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);

async function main(): Promise<{ rows: Row[]; notes: string[] }> {
  // No agent processes: a watched session's turn takes TURN_MS of real time (so sessions
  // overlap as busy ones do, and all_idle is not every turn end), a watcher's event turn
  // ends at once (so its next message waits on nothing but the relay).
  const isWatcher = new Set<string>();
  const app = buildRelay({
    dataDir,
    name: "bench",
    runner: {
      run: (sessionId) =>
        new Promise((r) =>
          isWatcher.has(sessionId)
            ? r({ stopReason: "end_turn" })
            : setTimeout(() => r({ stopReason: "end_turn" }), TURN_MS),
        ),
    },
  });
  const relay = app.parts;
  app.start();
  if (process.env.NOCKPT) relay.db.pragma("wal_autocheckpoint = 0");
  const watch = relay.watch;

  log(`creating ${WATCHERS} watchers and ${SESSIONS} watched sessions`);
  const mk = (title: string) =>
    relay.sessions.create({ provider: "scripted", model: "scripted-1", cwd: dataDir, title }).id;
  const watchers = Array.from({ length: WATCHERS }, (_, i) => mk(`watcher ${i}`));
  for (const w of watchers) isWatcher.add(w);
  const sessions = Array.from({ length: SESSIONS }, (_, i) => mk(`worker ${i}`));

  const now = Date.now();
  // UTC windows that began a minute ago and end at one of two minute boundaries ≥ 45 s away.
  const quietEnd = Math.ceil((now + 45_000) / 60_000) * 60_000;
  const quiet = (i: number) => ({ from: hhmm(now - 60_000), to: hhmm(quietEnd + (i % 2) * 60_000), tz: "UTC" });
  const per = SESSIONS / WATCHERS;
  for (let i = 0; i < WATCHERS; i++) {
    const row = watch.subs.insert(
      {
        watcher: watchers[i],
        all: false,
        sessions: sessions.slice(i * per, (i + 1) * per),
        exclude: [],
        events: null,
        once: false,
        match: null,
        stalledMinutes: 15,
        heartbeatMinutes: null,
        digestMinutes: i >= 60 && i < 80 ? 1 + (i % 2) : null,
        quiet: i >= 80 ? quiet(i) : null,
      },
      relay.clock.now(),
    );
    watch.started(row);
  }
  log(
    `subscriptions: 60 plain, 20 digest every 1 or 2 min, 20 quiet from ${quiet(0).from} to ${[0, 1].map((i) => quiet(i).to).join("/")} UTC`,
  );

  // CPU spent inside the watching domain: its bus listener, its delivery runs and its
  // batched writes (nested calls counted once), by process.cpuUsage around each call, less
  // the measured cost of the two cpuUsage calls themselves.
  let depth = 0;
  let domainMicros = 0;
  let calls = 0;
  const wrap = <T extends object>(obj: T, name: keyof T) => {
    const orig = (obj[name] as unknown as (...a: unknown[]) => unknown).bind(obj);
    (obj as Record<string, unknown>)[name as string] = (...a: unknown[]) => {
      if (depth++) {
        try {
          return orig(...a);
        } finally {
          depth--;
        }
      }
      calls++;
      const c0 = process.cpuUsage();
      try {
        return orig(...a);
      } finally {
        const c = process.cpuUsage(c0);
        domainMicros += c.user + c.system;
        depth--;
      }
    };
  };
  const probe = (): number => {
    const n = 20_000;
    const c0 = process.cpuUsage();
    for (let i = 0; i < n; i++) process.cpuUsage(process.cpuUsage());
    const c = process.cpuUsage(c0);
    return (c.user + c.system) / n;
  };
  const overheadMicros = Math.min(probe(), probe(), probe());
  wrap(watch as unknown as { onBus: unknown }, "onBus");
  wrap(watch.delivery, "run");
  wrap(watch.wb, "flush");

  const delays: number[] = [];
  // Each message by what it carries: a gathering window, a digest, the end of quiet hours.
  const byKind = { window: [] as number[], digest: [] as number[], quiet: [] as number[] };
  let delivered = 0;
  let messages = 0;
  watch.delivery.onWritten = (_w, dueAt, writtenAt, n, kind) => {
    const d = writtenAt - dueAt;
    delays.push(d);
    byKind[kind].push(d);
    delivered += n;
    messages++;
  };

  log(`${EVENTS} turn ends over ${EVENT_SECONDS} s`);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  // One prompt at a time, evenly paced, yielding between them as real traffic does.
  const gap = (EVENT_SECONDS * 1000) / EVENTS;
  for (let j = 0; j < EVENTS; j++) {
    const wait = t0 + j * gap - performance.now();
    await new Promise((r) => (wait > 1 ? setTimeout(r, wait) : setImmediate(r)));
    relay.turns.enqueue({ sessionId: sessions[(j * 7919) % SESSIONS], role: "user", text: `event ${j}` });
  }
  const eventCpu = process.cpuUsage(cpu0);
  log(`events emitted; waiting for the last windows, digests and the end of the quiet hours`);
  const expected = () => {
    watch.wb.flush();
    return (
      relay.db.prepare("SELECT COUNT(*) AS n FROM watch_events WHERE state IN ('held', 'ready')").get() as { n: number }
    ).n;
  };
  while (expected() > 0 && Date.now() - started < DEADLINE_MS - 20_000) await new Promise((r) => setTimeout(r, 500));
  const totalCpu = process.cpuUsage(cpu0);
  watch.wb.flush();
  const captured = (relay.db.prepare("SELECT COUNT(*) AS n FROM watch_events").get() as { n: number }).n;
  const sent = (relay.db.prepare("SELECT COUNT(*) AS n FROM watch_events WHERE state = 'sent'").get() as { n: number })
    .n;
  // Every event line in the watchers' conversations, counted from the messages themselves.
  let lineCount = 0;
  for (const w of watchers)
    for (const m of relay.sessions.messages(w))
      if (m.role === "event") lineCount += m.text.split("\n").filter((l) => l.startsWith("[relay event] ")).length;
  app.close();

  const ms = (micros: number) => micros / 1000;
  const single = (v: number) => summarize([v]);
  const rows: Row[] = [
    {
      metric: "watching CPU per event (capture + delivery)",
      unit: "ms",
      summary: single(ms(domainMicros - calls * overheadMicros) / EVENTS),
      target: 0.2,
    },
    {
      metric: "whole relay CPU per event, events phase (turns, bus, store)",
      unit: "ms",
      summary: single(ms(eventCpu.user + eventCpu.system) / EVENTS),
    },
    {
      metric: "whole relay CPU per event, to last delivery",
      unit: "ms",
      summary: single(ms(totalCpu.user + totalCpu.system) / EVENTS),
    },
    { metric: "due time → message written, all windows", unit: "ms", summary: summarize(delays), target: 20 },
    { metric: "  gathering windows (30 s)", unit: "ms", summary: summarize(byKind.window) },
    { metric: "  digests (every 1 or 2 min)", unit: "ms", summary: summarize(byKind.digest) },
    { metric: "  end of quiet hours", unit: "ms", summary: summarize(byKind.quiet) },
  ];
  const notes = [
    `domain CPU measured over ${calls} calls; ${overheadMicros.toFixed(2)} µs of measuring per call taken off`,
    `events captured ${captured} (${EVENTS} turn ends, each session has one watcher, plus the all_idle events the default events add), delivered ${delivered} in ${messages} messages, sent rows ${sent}, event lines in the watchers' conversations ${lineCount}`,
  ];
  if (delivered !== captured || sent !== captured || lineCount !== captured)
    notes.push("NOT EXACTLY ONCE: see the counts above");
  return { rows, notes };
}

main()
  .then(({ rows, notes }) => {
    clearTimeout(watchdog);
    console.log("");
    console.log(table(rows));
    for (const n of notes) console.log(n);
    console.log(machineLine());
    console.log(
      `${loadLine()} · date ${new Date().toISOString()} · took ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(rows.every(withinTarget) && !notes.some((n) => n.startsWith("NOT")) ? 0 : 1);
  })
  .catch((err) => {
    console.error(err);
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(1);
  });
