// run_command: a short command answers with its output; one asked to run in the background, or
// still running after the foreground limit, becomes a background task reported to the relay
// (`_oar/task`, `_oar/task_output`), so read_task_output and the watching events see it.

import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { TASK_METHOD, TASK_OUTPUT_METHOD } from "../../scripted/tasks.ts";
import { confine } from "./paths.ts";
import { int, str, type Tool, type ToolContext } from "./types.ts";

/** How long a foreground command may run before it moves to the background. */
const FOREGROUND_MS = 60_000;
const MAX_OUTPUT = 30_000;

function clip(text: string): string {
  return text.length > MAX_OUTPUT
    ? `[… first ${text.length - MAX_OUTPUT} characters cut]\n${text.slice(-MAX_OUTPUT)}`
    : text;
}

export const runCommand: Tool = {
  name: "run_command",
  description:
    "Run a shell command (sh -c) in the session's folder. Short commands return their output and exit code. " +
    "Set background: true for servers, watchers or long builds: it then runs as a background task whose output the user " +
    "and relay_tool read_task_output can read; commands still running after 60 s move to the background by themselves.",
  parameters: {
    type: "object",
    properties: {
      command: { type: "string" },
      description: { type: "string", description: "A few words naming the task (shown in the task list)." },
      background: { type: "boolean" },
      cwd: { type: "string", description: "Sub-folder to run in (default: the session's folder)." },
    },
    required: ["command"],
  },
  kind: "execute",
  writes: true,
  title: (a) => `${a.background ? "Start" : "Run"} \`${(str(a.command) ?? "").slice(0, 120)}\``,
  run: (a, ctx) => run(a, ctx),
};

async function run(a: Record<string, unknown>, ctx: ToolContext) {
  const command = str(a.command) ?? "";
  const dir = confine(ctx.cwd, str(a.cwd) || ".");
  const description = str(a.description) || command.slice(0, 80);
  const child = spawn("sh", ["-c", command], { cwd: dir, stdio: ["ignore", "pipe", "pipe"], detached: false });
  let output = "";
  let taskId: string | null = null;
  let chain: Promise<void> = Promise.resolve();
  const send = (method: string, params: Record<string, unknown>) => {
    chain = chain.then(() => ctx.notify(method, params)).catch(() => {});
    return chain;
  };
  const closed = new Promise<number | null>((resolve) => {
    child.on("close", (code) => resolve(code));
    child.on("error", (e) => {
      output += `\n${e.message}`;
      resolve(127);
    });
  });
  for (const stream of [child.stdout, child.stderr]) {
    stream.setEncoding("utf8");
    stream.on("data", (chunk: string) => {
      if (taskId) void send(TASK_OUTPUT_METHOD, { sessionId: ctx.sessionId, taskId, chunk });
      else output = (output + chunk).slice(-MAX_OUTPUT * 2);
    });
  }

  const toBackground = async (why: string) => {
    taskId = randomBytes(4).toString("hex");
    const base = { sessionId: ctx.sessionId, taskId, type: "local_bash", description };
    await send(TASK_METHOD, { ...base, status: "running" });
    if (output) void send(TASK_OUTPUT_METHOD, { sessionId: ctx.sessionId, taskId, chunk: output });
    void closed.then((code) =>
      send(TASK_METHOD, { ...base, status: code === 0 ? "completed" : "failed", exitCode: code }),
    );
    return {
      text: `${why} It runs as background task ${taskId} ("${description}"); its output goes to the task console (relay_tool read_task_output with task_id "${taskId}").`,
    };
  };

  if (a.background === true) return toBackground("Started in the background.");

  let timer: NodeJS.Timeout | undefined;
  const onAbort = () => child.kill("SIGTERM");
  ctx.signal.addEventListener("abort", onAbort, { once: true });
  try {
    const limit = int(a.timeout_ms) ?? FOREGROUND_MS;
    const outcome = await Promise.race([
      closed.then((code) => ({ code })),
      new Promise<"slow">((r) => (timer = setTimeout(() => r("slow"), limit))),
    ]);
    if (outcome === "slow") return toBackground(`Still running after ${Math.round(limit / 1000)} s.`);
    const body = clip(output.trimEnd());
    return { text: `exit code ${outcome.code}${body ? `\n${body}` : " (no output)"}`, failed: outcome.code !== 0 };
  } finally {
    clearTimeout(timer);
    ctx.signal.removeEventListener("abort", onAbort);
  }
}
