import { RelayError } from "../core/errors.ts";
import type { SessionRow } from "../sessions/types.ts";
import { allows, levelNeeded, LEVEL_LABEL } from "../pairing/levels.ts";
import type { RelayRow } from "../pairing/store.ts";
import { CallAnswer, type CallBody } from "../pairing/peer-protocol.ts";
import type { ActionDef, Args } from "./types.ts";
import type { ActionServices } from "./services.ts";
import { nothingDone } from "./target.ts";
import { isEmpty } from "./input.ts";

// A relay_tool call naming a paired relay (seed §5): this relay checks what is its own to
// decide (the relay is unlocked in this conversation, Agents may allows the action), then
// the other relay executes it under its rules. A card it asks for is shown here, in the
// calling conversation. Waits are split into short requests so a link that drops (or a
// relay restarted mid-wait) costs a retry, not the call.

/** Seconds one peer request waits at most; the rest of a long wait is further `wait` calls. */
const CHUNK_SECONDS = 50;
/** How long a wait keeps retrying a relay that stopped answering (real time). */
const RETRY_MS = 60_000;
const WAITS = new Set(["send", "create_session", "wait"]);

export interface ForwardOptions {
  signal: AbortSignal;
}

export type ForwardDeps = Pick<ActionServices, "pairing" | "settings" | "clock" | "approvals" | "budgets">;

export async function forwardCall(
  d: ForwardDeps,
  caller: SessionRow,
  def: ActionDef,
  input: Args,
  row: RelayRow,
  opts: ForwardOptions,
): Promise<Record<string, unknown>> {
  const { pairing, settings, clock, approvals, budgets } = d;
  const tail = nothingDone(def.name);
  if (!pairing.isUnlocked(caller.id, row)) {
    throw new RelayError(
      "REMOTE_RELAY_LOCKED",
      `Relay "${row.name}" is locked in this conversation: ask the user to mention it in a message here (@${row.name}), then call again. ${tail}`,
    );
  }
  const args: Args = {};
  for (const [k, v] of Object.entries(input)) if (k !== "action" && k !== "relay" && !isEmpty(v)) args[k] = v;
  const needed = levelNeeded(def, args);
  if (!allows(row.agents_may, needed)) {
    const level = needed === "none" ? "read" : needed;
    throw new RelayError(
      "REMOTE_RELAY_PERMISSION",
      `${def.name} on relay "${row.name}" needs Agents may "${LEVEL_LABEL[level]}" (${level}); the owner set it to "${LEVEL_LABEL[row.agents_may]}" (${row.agents_may}) under Settings → Relays. ${tail}`,
      { levelNeeded: level, level: row.agents_may },
    );
  }

  const base = pairing.callerOf(caller, row);

  const waits = WAITS.has(def.name);
  const longest = settings.get().longestWaitMinutes * 60;
  const requested = typeof args.wait_seconds === "number" && args.wait_seconds >= 0 ? args.wait_seconds : undefined;
  const total = Math.min(requested ?? longest, longest);
  const clampNote =
    requested !== undefined && requested > longest
      ? `wait_seconds ${requested} is more than this relay's Longest wait per tool call (${longest} s); waited at most ${longest} s.`
      : undefined;
  const deadline = clock.now() + total * 1000;
  const remaining = () => Math.max(0, Math.ceil((deadline - clock.now()) / 1000));

  // The prompt itself is sent without waiting, so it is known (message_id) before any wait
  // could be cut off; the waiting follows as `wait` requests.
  let body: CallBody = {
    ...base,
    action: def.name,
    args: waits ? { ...args, wait_seconds: def.name === "wait" ? Math.min(remaining(), CHUNK_SECONDS) : 0 } : args,
  };
  let first: Record<string, unknown> | null = null;
  let last: Record<string, unknown> | null = null;
  let unreachableSince = 0;
  // No echo (remote-waits.ts): the remote turn this call waits on, once the other relay named it.
  let waitedTurn: string | null = null;
  try {
    return await exchange();
  } finally {
    const status = (last as Record<string, unknown> | null)?.status;
    if (waitedTurn) pairing.waits.ended(caller.id, row.name, waitedTurn, typeof status === "string" ? status : "");
  }

  async function exchange(): Promise<Record<string, unknown>> {
    for (;;) {
      let answer: CallAnswer;
      try {
        const chunk = typeof body.args.wait_seconds === "number" ? body.args.wait_seconds : 0;
        answer = await pairing.call(row, "POST", "/peer/v1/call", body, CallAnswer, {
          timeoutMs: (chunk + 30) * 1000,
          signal: opts.signal,
          tail,
        });
        unreachableSince = 0;
      } catch (err) {
        // Mid-wait, a relay that stopped answering is tried again until the wait runs out.
        if (!last || !(err instanceof RelayError) || err.code !== "REMOTE_RELAY_OFFLINE" || opts.signal.aborted)
          throw err;
        unreachableSince ||= Date.now();
        if (remaining() <= 0 || Date.now() - unreachableSince > RETRY_MS) {
          return finish({
            ...last,
            note: `Relay "${row.name}" stopped answering while this call waited (${err.message.replace(/ Nothing.*$/, "")}); the prompt was queued there before. Call wait with this session and message_id later.`,
          });
        }
        await new Promise((r) => setTimeout(r, 1000));
        continue;
      }
      if ("approvalNeeded" in answer) {
        const g = answer.approvalNeeded;
        await approvals.confirm(
          caller,
          {
            action: def.name,
            relay: row.name,
            write: !!g.write,
            target: g.target ?? null,
            details: g.details ?? [],
            ...(g.detail ? { detail: g.detail } : {}),
            ...(g.billing ? { billing: g.billing } : {}),
            nothing: tail,
          },
          g.reasons ?? ["the other relay asks for the owner's approval"],
          opts.signal,
        );
        body = { ...body, approved: true };
        continue;
      }
      const result = answer.result;
      if (!first) {
        first = result;
        pairing.mirrorAfter(row, caller, def.name, args, result);
      }
      last = result;
      // What the turn there cost, once it ended: counted here for the caller's group (once).
      if (answer.turn !== undefined && answer.usage)
        budgets.recordRemote({ relay: row.name, remoteTurn: answer.turn, sessionId: caller.id, usage: answer.usage });
      if (waits && !waitedTurn && answer.turn !== undefined) {
        waitedTurn = answer.turn;
        pairing.waits.waiting(caller.id, row.name, waitedTurn);
      }
      const status = result.status;
      if (
        !waits ||
        result.ok === false ||
        (status !== "running" && status !== "queued") ||
        result.heldForBudget ||
        remaining() <= 0 ||
        opts.signal.aborted
      )
        return finish(result);
      body = {
        ...base,
        action: "wait",
        args: {
          session: result.session,
          message_id: result.message_id,
          wait_seconds: Math.min(remaining(), CHUNK_SECONDS),
        },
      };
    }
  }

  function finish(result: Record<string, unknown>): Record<string, unknown> {
    // The first answer says what was done (ids, what a session was started with, ignored);
    // the latest says where the turn is now.
    let out: Record<string, unknown> = { ...result };
    if (first && result !== first && result.ok !== false) {
      const kept = { ...first };
      for (const k of ["status", "reply", "note", "queuePosition", "pendingQuestions", "error", "summary"])
        delete kept[k];
      out = { ...kept, ...result };
    }
    if (first && result !== first && typeof first.summary === "string" && typeof result.summary === "string") {
      out.summary = result.summary.replace(/^wait →/, `${def.name} →`);
      if (first.ignored) out.ignored = first.ignored;
    }
    if (out.ok !== false) out.relay = row.name;
    if (typeof out.summary === "string") out.summary = out.summary.replace(/→ \S+/, `→ ${row.name}`);
    if (clampNote && out.ok !== false) out.note = [clampNote, out.note].filter(Boolean).join(" ");
    if (out.ok !== false && (out.status === "running" || out.status === "queued") && !out.note)
      out.note = "The turn is still going; call wait with this session and message_id to keep waiting.";
    return out;
  }
}
