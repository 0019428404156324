import type { Bus } from "../core/bus.ts";
import type { ManualClock } from "../core/clock.ts";
import type { SecretMask } from "../core/secret-mask.ts";
import type { ProviderProbes } from "../providers/probes.ts";
import type { McpEntry } from "../providers/acp-worker.ts";
import type { SessionRow } from "../sessions/types.ts";
import type { Notify } from "../notify/notify.ts";
import type { ActionServices } from "../actions/services.ts";

// What the owner API's routes use (issue 19): the action path's services plus what only the
// owner's surface needs. Declared here, by the consumer: the composition root fills it once
// (today app/api-services.ts reads it off the relay); no route imports the relay.

export interface ApiDeps extends ActionServices {
  /** The owner's bearer token (the data folder's owner-token file), read at start. */
  readonly ownerToken: string;
  /** Owner API answers and the UI stream are masked on the way out. */
  secretMask: Pick<SecretMask, "maskJson">;
  /** Provider availability (GET /api/providers, a new session's first check). */
  probes: Pick<ProviderProbes, "entry" | "check" | "firstChecks">;
  bus: Pick<Bus, "on" | "emit">;
  /** Set when the relay runs on the manual clock (`--test-clock`): POST /api/test/clock. */
  testClock?: ManualClock;
  /** The owner's own message: a turn, and it resets the conversation's loop count. */
  ownerMessage(sessionId: string, text: string): { messageId: string; turnId: string };
  archiveSession(id: string): void;
  deleteSession(id: string): void;
  /** A new conversation continues this one from a summary; returns the new one. */
  compactSession(id: string): SessionRow;
  /** A session's entry for its agent's MCP configuration (GET /api/sessions/:id/mcp). */
  mcpEntry(s: SessionRow): McpEntry;
  /** Web Push's key and subscriptions (contract §10.3, api/push.ts). */
  notify: Pick<Notify, "publicKey" | "subscriptions">;
  /** Served over https: its certificate's fingerprint, which pairing tokens carry. */
  tlsFingerprint(): string | null;
}
