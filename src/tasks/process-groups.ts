import { readFileSync, readdirSync } from "node:fs";

// Background shell tasks run in their own process group (the scripted agent starts them
// detached and reports the group id), so that Kill session, archive or delete can end the
// whole group — `sh` and everything it started — even after the agent process is gone.
// A task shows as killed only once its group is really gone.

const alive = (pgid: number): boolean => {
  try {
    process.kill(-pgid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
  // A group of zombies answers kill(0) too (where nobody reaps orphans, e.g. a container
  // whose first process does not): on Linux only members that still run count.
  return livingMembers(pgid) !== 0;
};

/** Members of the group that are not zombies, from /proc; -1 where /proc cannot tell. */
function livingMembers(pgid: number): number {
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return -1;
  }
  let n = 0;
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      // pid (comm) state ppid pgrp …: comm may hold spaces, so read after the last ")".
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(pgrp) === pgid && state !== "Z" && state !== "X") n++;
    } catch {}
  }
  return n;
}

const signal = (pgid: number, sig: NodeJS.Signals) => {
  try {
    process.kill(-pgid, sig);
  } catch {}
};

/** SIGTERM to the group, SIGKILL after `graceMs`; resolves once no process of it is left
 * (or after a last bound, so a wedged process cannot hold the relay). */
export async function endGroup(pgid: number, graceMs = 1500): Promise<boolean> {
  if (!Number.isInteger(pgid) || pgid <= 1 || pgid === process.pid) return true;
  if (!alive(pgid)) return true;
  signal(pgid, "SIGTERM");
  const start = Date.now();
  let killed = false;
  for (;;) {
    if (!alive(pgid)) return true;
    const waited = Date.now() - start;
    if (!killed && waited >= graceMs) {
      signal(pgid, "SIGKILL");
      killed = true;
    }
    if (waited > graceMs + 5000) return false;
    await new Promise((r) => setTimeout(r, 25));
  }
}
