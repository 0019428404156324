import type { ChildProcess } from "node:child_process";

/** Ends a relay the bench started and waits for it: SIGKILL between boots (nothing runs
 * yet), SIGTERM at the end so the relay lets its workers go cleanly. */
export async function stopProc(proc: ChildProcess, signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((r) => proc.once("exit", r));
  proc.kill(signal);
  await exited;
}
