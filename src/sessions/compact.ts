import { RelayError } from "../core/errors.ts";
import type { Bus } from "../core/bus.ts";
import type { Db } from "../store/db.ts";
import type { SessionStore } from "./session-store.ts";
import type { Turns } from "./turns.ts";
import type { SessionRow } from "./types.ts";
import { moveHead } from "../groups/groups.ts";
import { moveMirrors } from "../pairing/compaction.ts";

const SUMMARY_MESSAGES = 20;
const SUMMARY_CHARS = 600;

/** What compaction moves and who it tells: the stores whose rows follow the conversation. */
export type CompactDeps = Parameters<typeof moveMirrors>[0] & {
  db: Db;
  bus: Pick<Bus, "emit">;
  sessions: Pick<SessionStore, "get" | "state" | "create" | "update" | "moveStarted" | "messages">;
  turns: Pick<Turns, "enqueue">;
  schedules: { moveConversation(from: string, to: string): void };
  asks: { moveConversation(from: string, to: string): void };
  watch: { transfer(from: string, to: string, reason: "transferred"): unknown };
  archiveSession(id: string): void;
};

/** Compaction (contract §3): a new conversation continues this one from a summary. What
 * the old conversation held moves with it — its subscriptions as watcher, its schedules,
 * its questions, the sessions it started and its place in its group — then the old one
 * is archived. */
export function compactSession(d: CompactDeps, id: string): SessionRow {
  const old = d.sessions.get(id);
  if (!old) throw new RelayError("REMOTE_RELAY_NOT_FOUND", `No session "${id.slice(0, 80)}" on this relay. Nothing was compacted.`);
  if (old.archived_at) throw new RelayError("REMOTE_RELAY_ARCHIVED", `Session "${old.title}" is archived. Nothing was compacted.`);
  if (d.sessions.state(old.id) === "running_turn") {
    throw new RelayError("REMOTE_RELAY_BUSY", `Session "${old.title}" has a turn queued or running; compact it once the turn has ended. Nothing was compacted.`);
  }
  const summary = summaryOf(d, old);
  const next = d.db.transaction(() => {
    const s = d.sessions.create({
      provider: old.provider, model: old.model, effort: old.effort, mode: old.mode, cwd: old.cwd, title: old.title,
      repo: old.repo, branch: old.branch, viaSession: old.via_session, mayCreateSessions: !!old.may_create_sessions, groupId: old.group_id,
    });
    d.sessions.update(s.id, { extra_json: old.extra_json });
    d.sessions.moveStarted(old.id, s.id);
    moveHead(d, old.id, s.id);
    d.schedules.moveConversation(old.id, s.id);
    d.asks.moveConversation(old.id, s.id);
    return d.sessions.get(s.id)!;
  })();
  d.watch.transfer(old.id, next.id, "transferred");
  // Subscriptions held on paired relays move too (there, at the link's next poll).
  moveMirrors(d, old.id, next.id);
  d.archiveSession(old.id);
  d.bus.emit({ type: "session.updated", sessionId: next.id });
  d.turns.enqueue({ sessionId: next.id, role: "user", text: summary });
  return next;
}

function summaryOf(d: Pick<CompactDeps, "sessions">, s: SessionRow): string {
  const messages = d.sessions.messages(s.id, SUMMARY_MESSAGES);
  const lines = messages.map((m) => {
    const text = m.text.length > SUMMARY_CHARS ? `${m.text.slice(0, SUMMARY_CHARS)}…` : m.text;
    return `- ${m.role}: ${text.replace(/\n/g, "\n  ")}`;
  });
  return [
    `[Conversation compacted by OAR: this conversation continues "${s.title}" (${s.id}); its subscriptions, schedules and questions moved here.]`,
    `Summary of the last ${messages.length} of its ${s.message_count} messages:`,
    ...lines,
  ].join("\n");
}
