import { RelayError } from "../../core/errors.ts";
import type { SessionRow } from "../../sessions/types.ts";
import type { ActionServices } from "../services.ts";
import { archiveSession, type ArchiveDeps } from "./archive-session.ts";

const SUMMARY_MESSAGES = 20;
const SUMMARY_CHARS = 600;

/** What compaction moves and who it tells: the stores whose rows follow the conversation. */
export type CompactDeps = ArchiveDeps &
  Pick<ActionServices, "transaction" | "bus" | "turns"> & {
    sessions: Pick<ActionServices["sessions"], "get" | "state" | "create" | "update" | "moveStarted" | "messages">;
    groups: Pick<ActionServices["groups"], "moveHead">;
    schedules: Pick<ActionServices["schedules"], "moveConversation">;
    asks: Pick<ActionServices["asks"], "moveConversation">;
    watching: Pick<ActionServices["watching"], "transfer">;
    /** Subscriptions held on paired relays (pairing/compaction.ts). */
    mirrors: { move(from: string, to: string): unknown };
  };

/** Compaction (contract §3): a new conversation continues this one from a summary. What
 * the old conversation held moves with it — its subscriptions as watcher, its schedules,
 * its questions, the sessions it started and its place in its group — then the old one
 * is archived. */
export function compactSession(d: CompactDeps, id: string): SessionRow {
  const old = d.sessions.get(id);
  if (!old)
    throw new RelayError(
      "REMOTE_RELAY_NOT_FOUND",
      `No session "${id.slice(0, 80)}" on this relay. Nothing was compacted.`,
    );
  if (old.archived_at)
    throw new RelayError("REMOTE_RELAY_ARCHIVED", `Session "${old.title}" is archived. Nothing was compacted.`);
  if (d.sessions.state(old.id) === "running_turn") {
    throw new RelayError(
      "REMOTE_RELAY_BUSY",
      `Session "${old.title}" has a turn queued or running; compact it once the turn has ended. Nothing was compacted.`,
    );
  }
  const summary = summaryOf(d, old);
  const next = d.transaction(() => {
    const s = d.sessions.create({
      provider: old.provider,
      model: old.model,
      effort: old.effort,
      mode: old.mode,
      cwd: old.cwd,
      title: old.title,
      repo: old.repo,
      branch: old.branch,
      viaSession: old.via_session,
      mayCreateSessions: !!old.may_create_sessions,
      groupId: old.group_id,
    });
    d.sessions.update(s.id, { extra_json: old.extra_json });
    d.sessions.moveStarted(old.id, s.id);
    d.groups.moveHead(old.id, s.id);
    d.schedules.moveConversation(old.id, s.id);
    d.asks.moveConversation(old.id, s.id);
    return d.sessions.get(s.id)!;
  });
  d.watching.transfer(old.id, next.id, "transferred");
  // Subscriptions held on paired relays move too (there, at the link's next poll).
  d.mirrors.move(old.id, next.id);
  archiveSession(d, old.id);
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
