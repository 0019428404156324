// A relay's merge queue in its own process, to be SIGKILLed mid-merge by
// worktrees-merge.test.ts: it asks for one merge whose test command waits for a file, prints
// `running <pgid>` once the test runs, and waits to be killed.
import { join } from "node:path";
import { git } from "../../src/cloud/git.ts";
import { RealClock } from "../../src/core/clock.ts";
import { openDb } from "../../src/store/db.ts";
import { Worktrees } from "../../src/worktrees/worktrees.ts";

const [dataDir, session, test] = process.argv.slice(2);
const db = openDb(join(dataDir, "relay.db"));
const w = new Worktrees({ db, clock: new RealClock(), git, dataDir, relayName: "desk", titleOf: () => null });
const { mergeId } = await w.merges.ask({ session, test });
for (;;) {
  const row = w.merges.store.get(mergeId);
  if (row?.test_pgid) {
    process.stdout.write(`running ${row.test_pgid} ${mergeId}\n`);
    break;
  }
  await new Promise((r) => setTimeout(r, 20));
}
await new Promise(() => {});
