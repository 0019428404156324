// Worktrees through a real relay (issue 20 phase B) on a 10k-file repository: a session's
// create → first reply with a worktree of its own (`branch`) against a plain one in the same
// folder (p50; the extra must stay ≤ 150 ms), and a change the relay sees → the `overlap` it
// makes (p99 ≤ 1 s): from the moment the write through the relay reached the disk (the file's
// mtime) to the overlap's row (its created_at, on the same clock) — the check alone; and,
// for comparison, from the owner's message to the overlap on the page (the scripted agent's
// turn inside). The real clock, the owner API, the scripted agent as a real ACP child. Merge
// throughput is bench/worktrees.ts's (the queue does not change through the relay).
//   node --import tsx bench/worktrees-relay.ts      WT_FILES (10000), WT_CREATES (15), WT_OVERLAPS (30)
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import Database from "better-sqlite3";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { TestRelay, realSleep } from "../test/helpers/relay-process.ts";
import { bigRepo } from "./lib/big-repo.ts";
import { loadLine, machineLine, summarize, table, type Row } from "./lib/stats.ts";

const FILES = Number(process.env.WT_FILES ?? 10_000);
const CREATES = Number(process.env.WT_CREATES ?? 15);
const OVERLAPS = Number(process.env.WT_OVERLAPS ?? 30);

const root = mkdtempSync(join(tmpdir(), "oar-bench-wtr-"));
const repo = join(root, "repo");
console.log(machineLine());
console.log(loadLine());
bigRepo(repo, FILES);
console.log(`repository: ${FILES.toLocaleString("en")} files`);
const relay = await TestRelay.start({ name: "bench", testClock: false });

/** CPU (ms) the relay used so far, with its git children that ended (user + system). On a
 * machine shared with other work wall time mostly measures the wait for a core; this does not. */
function relayCpu(): number {
  const f = readFileSync(`/proc/${relay.proc.pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 10;
}

/** POST /api/sessions with a first message → its first reply; ms (wall, and the relay's CPU). */
async function createToReply(body: Record<string, unknown>): Promise<{ ms: number; cpu: number; id: string }> {
  const [t0, c0] = [performance.now(), relayCpu()];
  const r = await relay.api("POST", "/api/sessions", { provider: "scripted", cwd: repo, text: "hi", ...body });
  if (r.status !== 201) throw new Error(JSON.stringify(r.json));
  const id = r.json.id as string;
  for (;;) {
    const s = await relay.session(id);
    if (s.messages.some((m: any) => m.role === "agent"))
      return { ms: performance.now() - t0, cpu: relayCpu() - c0, id };
    await realSleep(5);
  }
}

try {
  // One of each first: the scripted agent's first start and the repository's first (fresh) worktree.
  await createToReply({ title: "warm plain" });
  await createToReply({ title: "warm tree", branch: "bench/warm" });
  const [plain, plainCpu, tree, treeCpu] = [[], [], [], []] as number[][];
  const trees: string[] = [];
  for (let i = 0; i < CREATES; i++) {
    // Sessions start seconds apart: the spare made after the last take is ready.
    await realSleep(3000);
    const p = await createToReply({ title: `plain ${i}` });
    plain.push(p.ms);
    plainCpu.push(p.cpu);
    await realSleep(3000);
    const t = await createToReply({ title: `tree ${i}`, branch: `bench/t${i}` });
    tree.push(t.ms);
    treeCpu.push(t.cpu);
    trees.push(t.id);
  }
  const p50 = (xs: number[]) => summarize(xs).p50;
  const rows: Row[] = [
    { metric: "create → first reply, plain session", unit: "ms", summary: summarize(plain) },
    { metric: "create → first reply, worktree session (branch)", unit: "ms", summary: summarize(tree) },
    { metric: "  relay CPU (with git), plain", unit: "ms", summary: summarize(plainCpu) },
    { metric: "  relay CPU (with git), worktree", unit: "ms", summary: summarize(treeCpu) },
  ];

  // Overlap: B writes f_i first (seen: its own change), then A writes f_i; the time from A's
  // write reaching the disk to the overlap naming f_i stored, and from A's message to it shown.
  const [a, b] = trees;
  const [lat, latCpu, seen] = [[], [], []] as number[][];
  const db = new Database(join(relay.dataDir, "oar.db"), { readonly: true, fileMustExist: true });
  const firstRow = db.prepare("SELECT MIN(created_at) AS at FROM worktree_overlaps WHERE paths_json LIKE ?");
  const aPath = (await relay.session(a)).worktree.path as string;
  for (let i = 0; i < OVERLAPS; i++) {
    const file = `pkg3/mod3/overlap${i}.ts`;
    await relay.say(b, `/write ${file} b ${i}\\n`, 60_000);
    const [t0, c0] = [performance.now(), relayCpu()];
    const m = await relay.api("POST", `/api/sessions/${a}/messages`, { text: `/write ${file} a ${i}\\n` });
    if (m.status !== 201) throw new Error(JSON.stringify(m.json));
    for (;;) {
      const s = await relay.session(a);
      if (s.overlaps?.some((o: any) => o.paths.includes(file))) break;
      await realSleep(5);
    }
    lat.push(performance.now() - t0);
    latCpu.push(relayCpu() - c0);
    const at = (firstRow.get(`%"${file}"%`) as { at: number | null }).at;
    seen.push(at! - statSync(join(aPath, file)).mtimeMs);
  }
  db.close();
  rows.push({
    metric: "a write through the relay reaches the disk → overlap written",
    unit: "ms",
    summary: summarize(seen),
    target: 1000,
  });
  rows.push({
    metric: "the owner's message (/write) → overlap shown (agent's turn inside)",
    unit: "ms",
    summary: summarize(lat),
  });
  rows.push({ metric: "  relay CPU (with git) of it", unit: "ms", summary: summarize(latCpu) });
  console.log(table(rows));
  const extra = p50(tree) - p50(plain);
  const extraCpu = p50(treeCpu) - p50(plainCpu);
  console.log(
    `worktree extra at p50: ${extra.toFixed(0)} ms wall, ${extraCpu.toFixed(0)} ms relay CPU (target ≤ 150 ms)`,
  );
  console.log(
    `change seen → overlap written p99: ${summarize(seen).p99.toFixed(0)} ms (target ≤ 1000 ms) ${summarize(seen).p99 <= 1000 ? "✓" : "✗"}`,
  );
  console.log(loadLine());
} catch (e) {
  console.error(e);
  process.exitCode = 1;
} finally {
  await relay.stop().catch((e) => console.error(e));
  rmSync(root, { recursive: true, force: true });
}
