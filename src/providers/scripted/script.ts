// One prompt turn of the scripted agent: reads the prompt line by line, runs the
// directives in order and streams each reply line as an agent_message_chunk.

import { RequestError } from "../agent-acp.ts";
import type { RelayClient } from "./relay-client.ts";
import { startShellTask, startSubagent, type Notify } from "./tasks.ts";
import { Cancelled, abortable, hang, sleep, throwIfAborted } from "./util.ts";
import { usageLine, writeLine } from "./lines-more.ts";

export type ScriptSession = {
  id: string;
  cwd: string;
  model: string;
  relay: RelayClient | undefined;
};

export type TurnIo = {
  /** Sends one reply chunk (a session/update agent_message_chunk). */
  sendText(text: string): Promise<void>;
  /** Sends an ACP extension request to the client. */
  request(method: string, params: Record<string, unknown>, signal: AbortSignal): Promise<unknown>;
  /** Sends an ACP extension notification to the client. */
  notify: Notify;
};

export const ASK_USER_METHOD = "_oar/ask_user";

const RELAY_DISABLED = JSON.stringify({
  ok: false,
  code: "REMOTE_RELAY_DISABLED",
  error: "relay_tool is not offered to this session.",
});

/** Runs the script; resolves "end_turn" or "cancelled", throws RequestError for /error. */
export async function runTurn(
  session: ScriptSession,
  script: string,
  io: TurnIo,
  signal: AbortSignal,
): Promise<"end_turn" | "cancelled"> {
  let replyLines = 0;
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
      await runDirective(session, line, io, signal, reply);
    }
    if (collected.length > 0) await reply(`echo: ${collected.join("\n")}`);
    return "end_turn";
  } catch (e) {
    if (e instanceof Cancelled || signal.aborted) return "cancelled";
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
      const toolArgs = parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
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

    case "/write":
      return writeLine(session, rest, io, signal, reply);

    case "/usage":
      return usageLine(session, args, io, reply);

    case "/pid":
      // Which process ran the turn (tests: the same worker across a relay restart).
      return reply(`pid ${process.pid}`);

    default:
      return reply(`unknown directive: ${name}`);
  }
}
