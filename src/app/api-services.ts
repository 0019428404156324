import type { Relay } from "../relay.ts";
import { ManualClock } from "../core/clock.ts";
import type { ApiDeps } from "../api/deps.ts";
import type { WebDeps } from "../web/ui.ts";

/** Transitional (issue 19, until app/build.ts builds each service itself): the owner API's
 * services read off the relay, beside the action path's (`relay.services`). The owner token is
 * read when asked for: it is set once the server is built. */
export function apiServicesOf(relay: Relay): ApiDeps {
  return {
    ...relay.services,
    get ownerToken() {
      return relay.ownerToken;
    },
    secretMask: relay.secretMask,
    probes: relay.probes,
    bus: relay.bus,
    testClock: relay.clock instanceof ManualClock ? relay.clock : undefined,
    db: relay.db,
    ownerMessage: (sessionId, text) => relay.ownerMessage(sessionId, text),
    archiveSession: (id) => relay.archiveSession(id),
    deleteSession: (id) => relay.deleteSession(id),
    compactSession: (id) => relay.compactSession(id),
    mcpEntry: (s) => relay.mcpEntry(s),
  };
}

/** The web page's: which data folder its login card names. */
export function webServicesOf(relay: Relay): WebDeps {
  return { identity: relay.services.identity };
}
