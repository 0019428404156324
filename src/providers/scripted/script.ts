// One prompt turn of the scripted agent: reads the prompt line by line, runs the
// directives in order and streams each reply line as an agent_message_chunk.

import { RequestError } from "../agent-acp.ts";
import { commit, writeFile } from "./files.ts";
import type { RelayClient } from "./relay-client.ts";
import { startShellTask, startSubagent, type Notify } from "./tasks.ts";
import { Cancelled, abortable, hang, sleep, throwIfAborted } from "./util.ts";

export type ScriptSession = {
  id: string;
  cwd: string;
  model: string;
  relay: RelayClient | undefined;
  /** What `/usage` reported over the session's life (ACP's usage_update carries the total). */
  costUsd: number;
};

export type TurnIo = {
  /** Sends one reply chunk (a session/update agent_message_chunk). */
  sendText(text: string): Promise<void>;
  /** Sends an ACP extension request to the client. */
  request(method: string, params: Record<string, unknown>, signal: AbortSignal): Promise<unknown>;
  /** Sends an ACP extension notification to the client. */
  notify: Notify;
  /** Sends a session/update other than reply text (tool calls, usage). */
  update(update: Record<string, unknown>): Promise<void>;
  /** The client offered `fs.writeTextFile` in initialize. */
  clientWrites: boolean;
};

/** The tokens `/usage` reported this turn: the prompt's answer carries them. */
export type TurnUsage = { inputTokens: number; outputTokens: number; totalTokens: number };

export type TurnEnd = { stopReason: "end_turn" | "cancelled"; usage?: TurnUsage };

export const ASK_USER_METHOD = "_oar/ask_user";

const RELAY_DISABLED = JSON.stringify({
  ok: false,
  code: "REMOTE_RELAY_DISABLED",
  error: "relay_tool is not offered to this session.",
});

/** Runs the script; resolves "end_turn" or "cancelled" (with the usage `/usage` reported),
 * throws RequestError for /error. */
export async function runTurn(
  session: ScriptSession,
  script: string,
  io: TurnIo,
  signal: AbortSignal,
): Promise<TurnEnd> {
  let replyLines = 0;
  const turn: { usage?: TurnUsage } = {};
  const reply = async (line: string) => {
    throwIfAborted(signal);
    await io.sendText(replyLines++ === 0 ? line : `\n${line}`);
  };
  const collected: string[] = [];
  try {
    for (const raw of script.split("\n")) {
      throwIfAborted(signal);
      const line = raw.replace(/\r$/, "");
      if (!line.startsWith("/")) {
        if (line.trim() !== "") collected.push(line);
        continue;
      }
      await runDirective(session, line, io, signal, reply, turn);
    }
    if (collected.length > 0) await reply(`echo: ${collected.join("\n")}`);
    return { stopReason: "end_turn", ...turn };
  } catch (e) {
    if (e instanceof Cancelled || signal.aborted) return { stopReason: "cancelled", ...turn };
    throw e;
  }
}

function nonNegativeInt(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d+$/.test(text)) return undefined;
  return Number(text);
}

async function runDirective(
  session: ScriptSession,
  line: string,
  io: TurnIo,
  signal: AbortSignal,
  reply: (line: string) => Promise<void>,
  turn: { usage?: TurnUsage },
): Promise<void> {
  const m = /^(\/\S*)(?:\s+([\s\S]*))?$/.exec(line)!;
  const name = m[1];
  const rest = m[2] ?? "";
  const args = rest.split(/\s+/).filter(Boolean);
  const invalid = () => reply(`invalid directive: ${line}`);

  switch (name) {
    case "/reply":
      return reply(rest);

    case "/sleep": {
      const ms = nonNegativeInt(args[0]);
      if (ms === undefined) return invalid();
      return sleep(ms, signal);
    }

    case "/stream": {
      const n = nonNegativeInt(args[0]);
      const ms = nonNegativeInt(args[1] ?? "0");
      if (n === undefined || ms === undefined) return invalid();
      for (let i = 1; i <= n; i++) {
        await sleep(ms, signal);
        await reply(`chunk ${i}`);
      }
      return;
    }

    case "/hang":
      return hang(signal);

    case "/tool": {
      let parsed: unknown;
      try {
        parsed = JSON.parse(rest);
      } catch (e) {
        return reply(`tool: ${JSON.stringify({ ok: false, error: `invalid JSON: ${(e as Error).message}` })}`);
      }
      if (!session.relay) return reply(`tool: ${RELAY_DISABLED}`);
      const toolArgs =
        parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
      const result = await session.relay.call(toolArgs, signal);
      return reply(`tool: ${result}`);
    }

    case "/ask_user": {
      const [question = "", ...options] = rest.split("|").map((s) => s.trim());
      const response = (await abortable(
        io.request(ASK_USER_METHOD, { sessionId: session.id, question, options: options.filter(Boolean) }, signal),
        signal,
      )) as { choice?: unknown; answer?: unknown } | null | undefined;
      const value = response?.choice ?? response?.answer ?? "";
      return reply(`answer: ${typeof value === "string" ? value : JSON.stringify(value)}`);
    }

    case "/task": {
      const sp = /^(\S+)\s+([\s\S]+)$/.exec(rest);
      if (!sp) return invalid();
      const taskId = await startShellTask(io.notify, session.id, sp[1], sp[2], session.cwd);
      return reply(`task: ${taskId} started`);
    }

    case "/subagent": {
      const ms = nonNegativeInt(args[1] ?? "0");
      if (!args[0] || ms === undefined) return invalid();
      const taskId = await startSubagent(io.notify, session.id, args[0], ms);
      return reply(`subagent: ${taskId} started`);
    }

    case "/error":
      // The text is the turn's error as said (data oar.kind: not a sign-in failure, see turn-errors.ts).
      throw new RequestError(-32000, rest, { oar: { kind: "protocol" } });

    case "/model":
      return reply(session.model);

    case "/write": {
      const refused = await writeFile(session.id, session.cwd, rest, io, signal);
      return refused === null ? undefined : reply(refused);
    }

    case "/commit":
      return reply(await commit(session.cwd, rest.trim()));

    case "/usage": {
      // Reported as real agents do: the session's running cost in a usage_update (the relay
      // takes each turn's share), this turn's tokens in the prompt's answer.
      const [input, output] = [nonNegativeInt(args[0]), nonNegativeInt(args[1])];
      const cost = args[2] !== undefined && /^\d+(\.\d+)?$/.test(args[2]) ? Number(args[2]) : undefined;
      if (input === undefined || output === undefined || cost === undefined || args.length !== 3) return invalid();
      const u = turn.usage ?? { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
      turn.usage = {
        inputTokens: u.inputTokens + input,
        outputTokens: u.outputTokens + output,
        totalTokens: u.totalTokens + input + output,
      };
      session.costUsd = Math.round((session.costUsd + cost) * 1e6) / 1e6;
      return io.update({
        sessionUpdate: "usage_update",
        used: turn.usage.totalTokens,
        size: 0,
        cost: { amount: session.costUsd, currency: "USD" },
      });
    }

    case "/pid":
      // Which process ran the turn (tests: the same worker across a relay restart).
      return reply(`pid ${process.pid}`);

    default:
      return reply(`unknown directive: ${name}`);
  }
}
