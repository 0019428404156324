// Scripted agent lines of contract §10.1: `/write PATH TEXT` (a file edit reported as an
// ACP tool call of kind `edit` with its diff, as real agents report theirs) and
// `/usage INPUT OUTPUT COST_USD` (the turn's tokens and cost, reported as real agents do:
// tokens in the prompt's answer, cost as the session's running total in usage_update).

import { randomUUID } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, isAbsolute, relative, resolve } from "node:path";
/** What these lines use of a session and of the turn's connection (script.ts passes its own). */
type ScriptSession = { id: string; cwd: string };
type TurnIo = {
  request(method: string, params: Record<string, unknown>, signal: AbortSignal): Promise<unknown>;
  notify(method: string, params: Record<string, unknown>): Promise<void> | void;
};

/** Whether the client offered fs/write_text_file in initialize (set by agent.ts). */
export const clientFs = { write: false };

export type TurnUsage = { inputTokens?: number; outputTokens?: number };
export type UsageSession = ScriptSession & { costSoFar?: number; turnUsage?: TurnUsage };

export async function writeLine(session: ScriptSession, rest: string, io: TurnIo, signal: AbortSignal, reply: (line: string) => Promise<void>): Promise<void> {
  const m = /^(\S+)\s?([\s\S]*)$/.exec(rest);
  if (!m) return reply(`invalid directive: /write ${rest}`);
  const path = resolve(session.cwd, m[1]);
  const rel = relative(session.cwd, path);
  if (rel.startsWith("..") || isAbsolute(rel)) return reply(`write refused: ${m[1]} is outside the session's folder`);
  const text = m[2].replace(/\\n/g, "\n");
  const oldText = await readFile(path, "utf8").catch(() => null);
  try {
    if (clientFs.write) await io.request("fs/write_text_file", { sessionId: session.id, path, content: text }, signal);
    else {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, text);
    }
  } catch (e) {
    return reply(`write refused: ${(e as Error).message ?? String(e)}`);
  }
  await io.notify("session/update", {
    sessionId: session.id,
    update: {
      sessionUpdate: "tool_call", toolCallId: `write-${randomUUID().slice(0, 8)}`, title: `Write ${rel}`, kind: "edit", status: "completed",
      locations: [{ path }], content: [{ type: "diff", path: rel, oldText, newText: text }],
    },
  });
}

export async function usageLine(session: UsageSession, args: string[], io: TurnIo, reply: (line: string) => Promise<void>): Promise<void> {
  const [input, output, cost] = args.map(Number);
  if (args.length !== 3 || ![input, output, cost].every((n) => Number.isFinite(n) && n >= 0)) return reply(`invalid directive: /usage ${args.join(" ")}`);
  session.turnUsage = { inputTokens: (session.turnUsage?.inputTokens ?? 0) + input, outputTokens: (session.turnUsage?.outputTokens ?? 0) + output };
  session.costSoFar = (session.costSoFar ?? 0) + cost;
  await io.notify("session/update", { sessionId: session.id, update: { sessionUpdate: "usage_update", used: 0, size: 0, cost: { amount: session.costSoFar, currency: "USD" } } });
}
