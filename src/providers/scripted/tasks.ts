// Background work for `/task` and `/subagent`: runs detached from the turn that
// started it and reports over the ACP extension notifications `_oar/task` and
// `_oar/task_output`.

import { spawn } from "node:child_process";
import { errorMessage, log, shortId } from "./util.ts";

/** Sends one ACP extension notification to the client. */
export type Notify = (method: string, params: Record<string, unknown>) => Promise<void>;

export type TaskType = "local_bash" | "subagent";

export const TASK_METHOD = "_oar/task";
export const TASK_OUTPUT_METHOD = "_oar/task_output";

/** Notifications of one task are sent strictly in order, failures only logged. */
function serialNotifier(notify: Notify): Notify {
  let chain: Promise<void> = Promise.resolve();
  return (method, params) => {
    chain = chain.then(() => notify(method, params)).catch((e) => log(`${method} not delivered: ${errorMessage(e)}`));
    return chain;
  };
}

/**
 * Starts `sh -c shell` in `cwd`. Returns the task id once the "running"
 * notification is sent; output and the final status follow as they happen.
 */
export async function startShellTask(
  notify: Notify,
  sessionId: string,
  name: string,
  shell: string,
  cwd: string,
): Promise<string> {
  const taskId = shortId();
  const send = serialNotifier(notify);
  const base = { sessionId, taskId, type: "local_bash" as TaskType, description: name };
  // Its own process group (detached), reported as pgid: the relay ends the whole group on
  // Kill session even when this agent process is gone.
  const child = spawn("sh", ["-c", shell], { cwd, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let spawnError: Error | null = null;
  child.once("error", (e) => (spawnError = e));
  await send(TASK_METHOD, { ...base, status: "running", ...(child.pid ? { pgid: child.pid } : {}) });

  let finished = false;
  const finish = (exitCode: number | null, extra: Record<string, unknown> = {}) => {
    if (finished) return;
    finished = true;
    void send(TASK_METHOD, { ...base, status: exitCode === 0 ? "completed" : "failed", exitCode, ...extra });
  };

  for (const stream of [child.stdout, child.stderr]) {
    stream.setEncoding("utf8");
    stream.on("data", (chunk: string) => void send(TASK_OUTPUT_METHOD, { sessionId, taskId, chunk }));
  }
  // "close" comes after both pipes have drained, so every output chunk precedes the status.
  child.on("close", (code, signal) => finish(code, signal ? { signal } : {}));
  const failed = (e: Error) => {
    log(`task ${taskId} failed to start: ${errorMessage(e)}`);
    finish(null, { error: errorMessage(e) });
  };
  if (spawnError) failed(spawnError);
  child.on("error", failed);
  return taskId;
}

/** A pretend subagent: "running" now, "completed" (exit 0) after `ms` real milliseconds. */
export async function startSubagent(notify: Notify, sessionId: string, name: string, ms: number): Promise<string> {
  const taskId = shortId();
  const send = serialNotifier(notify);
  const base = { sessionId, taskId, type: "subagent" as TaskType, description: name };
  await send(TASK_METHOD, { ...base, status: "running" });
  setTimeout(() => void send(TASK_METHOD, { ...base, status: "completed", exitCode: 0 }), Math.max(0, ms));
  return taskId;
}
