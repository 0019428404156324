import type { z } from "zod";
import type { Bus } from "../core/bus.ts";
import type { Clock } from "../core/clock.ts";
import type { SettingsStore } from "../core/settings.ts";
import type { Db } from "../store/db.ts";
import type { SessionRow, TurnRow } from "../sessions/types.ts";
import type { MirrorPort } from "../watching/port.ts";
import type { PairingStore, RelayRow } from "./store.ts";
import type { PeerUsage } from "./peer-protocol.ts";
import type { PeerOutbox } from "./outbox.ts";

// What the pairing domain uses of the rest of the relay (issue 19); app/build.ts hands it over.

/** Watching as pairing uses it (watching's mirror port): mirrors of subscriptions on paired
 * relays, the events that arrive for them, and the subscriptions of stand-ins that a
 * pairing's end ends. */
export type PairingWatch = MirrorPort;

export interface PairingDeps {
  db: Db;
  /** Built before pairing: whether relay_tool is offered reads it while workers start. */
  store: PairingStore;
  /** Built before watching, which writes the events of watchers on paired relays into it. */
  outbox: PeerOutbox;
  clock: Clock;
  bus: Pick<Bus, "emit">;
  /** This relay's name and the version it presents. */
  name: string;
  version: string;
  isSelfName(relay: string): boolean;
  settings: Pick<SettingsStore, "get">;
  sessions: { get(id: string): SessionRow | undefined; activeTurns(sessionId: string): TurnRow[] };
  watch: PairingWatch;
  /** What a turn run on a paired relay for a conversation here reported, as that relay's
   * outbox brought it: counted for the conversation's group budget (once per remote turn). */
  remoteSpend?(r: { relay: string; remoteTurn: string; sessionId: string; usage: PeerUsage }): void;
}

export interface PeerCallOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** The end of a refusal: what was not done ("Nothing was done."). */
  tail?: string;
}

/** One peer request to a paired relay, its answer parsed with `answer` (Pairing.call). */
export type PeerCall = <S extends z.ZodType>(
  row: RelayRow,
  method: "GET" | "POST",
  path: string,
  body: unknown,
  answer: S,
  opts: PeerCallOptions,
) => Promise<z.output<S>>;
