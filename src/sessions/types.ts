import { z } from "zod";

// Rows as stored, and the shapes the relay shows. Timestamps are epoch ms in the store
// and ISO strings on the wire.

/** Relay modes (contract §4.3): every schema that takes a mode (relay_tool, the owner API, the
 * peer API) uses this one. */
export const Mode = z.enum(["agent", "ask", "plan"]);
export type Mode = z.output<typeof Mode>;
/** Reasoning effort; each provider offers some of them (providers/catalog.ts). */
export const Effort = z.enum(["low", "medium", "high", "max"]);
export type Effort = z.output<typeof Effort>;
export type Role = "user" | "agent" | "event" | "schedule" | "remote";
export type TurnStatus = "queued" | "running" | "done" | "error" | "stopped";
export type SessionState = "running_turn" | "background_only" | "idle";

export interface SessionRow {
  id: string;
  title: string;
  provider: string;
  model: string;
  effort: string | null;
  mode: Mode;
  cwd: string;
  repo: string | null;
  branch: string | null;
  agent_token: string;
  via_session: string | null;
  may_create_sessions: number;
  group_id: string | null;
  acp_session_id: string | null;
  extra_json: string;
  message_count: number;
  created_at: number;
  last_activity_at: number;
  archived_at: number | null;
  deleted_at: number | null;
}

export interface MessageRow {
  id: string;
  session_id: string;
  seq: number;
  role: Role;
  text: string;
  from_json: string | null;
  meta_json: string | null;
  turn_id: string | null;
  created_at: number;
}

export interface TurnRow {
  id: string;
  session_id: string;
  message_id: string;
  status: TurnStatus;
  mode: Mode | null;
  model: string | null;
  from_session: string | null;
  origin_json: string | null;
  reply_text: string | null;
  reply_message_id: string | null;
  error: string | null;
  queued_at: number;
  started_at: number | null;
  /** When its prompt was handed to the agent (null: the agent never saw it). */
  prompted_at?: number | null;
  ended_at: number | null;
}

export interface TaskRow {
  id: string;
  session_id: string;
  type: string;
  description: string;
  status: "running" | "completed" | "failed" | "killed";
  exit_code: number | null;
  output_path: string | null;
  started_at: number;
  ended_at: number | null;
  last_output_at: number | null;
  /** The running shell task's own process group (null once ended, or none reported). */
  pgid?: number | null;
}

/** Who sent an agent prompt: the "↗ from" badge (contract §4.5). */
export interface FromInfo {
  relay: string;
  session: string;
  title: string;
  model: string;
}
