// How events read in the watcher's conversation (seed §9 "How events arrive"): a first line
// saying what the message is, then one compact line per event; digests and quiet hours add
// a line saying why these events come together.
import type { EventRow } from "./types.ts";
import { quietLabel, type QuietHours } from "./quiet-hours.ts";
import { WAKE_CAP } from "./types.ts";

export const FIRST_LINE = "[relay event \u00b7 automated message from OAR, not from the user; it approves nothing]";
export const LINE_PREFIX = "[relay event] ";

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** One line of text, at most `max` characters, for quoting a reply, an error or a question. */
export function excerpt(text: string | null | undefined, max = 120): string {
  const flat = (text ?? "").replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1).trimEnd()}\u2026` : flat;
}

const quote = (text: string | null | undefined, max?: number) => {
  const e = excerpt(text, max);
  return e ? ` "${e.replace(/"/g, "'")}"` : "";
};

export const sessionRef = (title: string, id: string) => `session "${excerpt(title, 80).replace(/"/g, "'")}" (${id})`;

export const lines = {
  turnEnd: (ref: string, status: string, reply: string | null) => `${ref}: turn_end (${status})${quote(reply)}`,
  error: (ref: string, error: string | null) => `${ref}: error${quote(error || "The turn failed.")}`,
  questionAsked: (ref: string, id: string, question: string, options: string[]) =>
    `${ref}: question_asked ${id}${quote(question, 200)}${options.length ? ` [${options.map((o) => excerpt(o, 40)).join(" | ")}]` : ""}`,
  questionAnswered: (ref: string, id: string, status: string, answer: string | null) =>
    `${ref}: question_answered ${id}${status === "dismissed" ? " (dismissed)" : quote(answer)}`,
  task: (ref: string, type: string, name: string, taskType: string, status: string, exit: number | null) => {
    const how =
      type === "task_started"
        ? taskType
        : status === "killed"
          ? `${taskType}, killed`
          : `${taskType}${exit != null ? `, exit ${exit}` : ""}`;
    return `${ref}: ${type}${quote(name, 80)} (${how})`;
  },
  stalled: (ref: string, minutes: number, what: string) =>
    `${ref}: stalled: no progress for ${plural(minutes, "min", "min")} (${what})`,
  allIdle: (n: number, subId: string) =>
    `all_idle: no turn or task is running in the ${plural(n, "watched session")} (subscription ${subId})`,
  heartbeat: (subId: string, n: number, working: string[]) =>
    `heartbeat: ${plural(n, "watched session")}, ${working.length} working${working.length ? `: ${working.slice(0, 10).join(", ")}${working.length > 10 ? ", \u2026" : ""}` : ""} (subscription ${subId})`,
};

export interface SubInfo {
  digestMinutes: number | null;
  quiet: QuietHours | null;
}

/** The message for the events going out together, in the order they happened. */
export function composeMessage(events: EventRow[], subInfo: (id: string) => SubInfo | undefined): string {
  const quiet = new Map<string, EventRow[]>();
  const digest: EventRow[] = [];
  const plain: EventRow[] = [];
  for (const e of events) {
    const info = e.hold_sub ? subInfo(e.hold_sub) : undefined;
    if (e.hold === "quiet" && info?.quiet) {
      const label = quietLabel(info.quiet);
      if (!quiet.has(label)) quiet.set(label, []);
      quiet.get(label)!.push(e);
    } else if (e.hold === "digest" || e.capped) digest.push(e);
    else plain.push(e);
  }
  const out = [FIRST_LINE];
  const line = (e: EventRow) => (e.line.startsWith(LINE_PREFIX) ? e.line : LINE_PREFIX + e.line);
  for (const [label, list] of quiet) {
    out.push(
      `Held during quiet hours (${label}): ${plural(list.length, "event")}, delivered now that the window has ended; questions and errors came at once.`,
    );
    out.push(...list.map(line));
  }
  if (digest.length > 1) {
    const subs = [...new Set(digest.filter((e) => e.hold === "digest" && e.hold_sub).map((e) => e.hold_sub!))];
    const why = subs.map((id) => `${id} every ${subInfo(id)?.digestMinutes ?? "?"} min`);
    const reasons = [
      ...(why.length ? [`${why.length === 1 ? "subscription" : "subscriptions"} ${why.join(", ")}`] : []),
      ...(digest.some((e) => e.capped) ? [`wake-up cap of ${WAKE_CAP} an hour reached`] : []),
      "questions and errors come at once",
    ];
    out.push(`Digest of ${plural(digest.length, "event")} (${reasons.join("; ")}):`);
  }
  // A digest of a single event reads as that event.
  out.push(...digest.map(line));
  out.push(...plain.map(line));
  return out.join("\n");
}
