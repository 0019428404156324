import { RelayError } from "../core/errors.ts";
import type { Relay } from "../relay.ts";
import type { SessionRow } from "./types.ts";
import { moveMirrors } from "../pairing/compaction.ts";

const SUMMARY_MESSAGES = 20;
const SUMMARY_CHARS = 600;

/** Compaction (contract §3): a new conversation continues this one from a summary. What
 * the old conversation held moves with it — its subscriptions as watcher, its schedules,
 * its questions, the sessions it started and its place in its group — then the old one
 * is archived. */
export function compactSession(relay: Relay, id: string): SessionRow {
  const old = relay.sessions.get(id);
  if (!old) throw new RelayError("REMOTE_RELAY_NOT_FOUND", `No session "${id.slice(0, 80)}" on this relay. Nothing was compacted.`);
  if (old.archived_at) throw new RelayError("REMOTE_RELAY_ARCHIVED", `Session "${old.title}" is archived. Nothing was compacted.`);
  if (relay.sessions.state(old.id) === "running_turn") {
    throw new RelayError("REMOTE_RELAY_BUSY", `Session "${old.title}" has a turn queued or running; compact it once the turn has ended. Nothing was compacted.`);
  }
  const summary = summaryOf(relay, old);
  const next = relay.db.transaction(() => {
    const s = relay.sessions.create({
      provider: old.provider, model: old.model, effort: old.effort, mode: old.mode, cwd: old.cwd, title: old.title,
      repo: old.repo, branch: old.branch, viaSession: old.via_session, mayCreateSessions: !!old.may_create_sessions, groupId: old.group_id,
    });
    relay.sessions.update(s.id, { extra_json: old.extra_json });
    relay.db.prepare("UPDATE sessions SET via_session = ? WHERE via_session = ?").run(s.id, old.id);
    relay.db.prepare("UPDATE groups SET head_session = ? WHERE head_session = ?").run(s.id, old.id);
    relay.schedules.moveConversation(old.id, s.id);
    relay.asks.moveConversation(old.id, s.id);
    return relay.sessions.get(s.id)!;
  })();
  relay.watch.transfer(old.id, next.id, "transferred");
  // Subscriptions held on paired relays move too (there, at the link's next poll).
  moveMirrors(relay, old.id, next.id);
  relay.archiveSession(old.id);
  relay.bus.emit({ type: "session.updated", sessionId: next.id });
  relay.turns.enqueue({ sessionId: next.id, role: "user", text: summary });
  return next;
}

function summaryOf(relay: Relay, s: SessionRow): string {
  const messages = relay.sessions.messages(s.id, SUMMARY_MESSAGES);
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
