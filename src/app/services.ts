import type { Relay } from "../relay.ts";
import type { ActionServices, Identity } from "../actions/services.ts";
import { Groups } from "../groups/service.ts";
import { sessionReads } from "../sessions/reads.ts";

/** Transitional (issue 19, until app/build.ts builds each service itself): the action path's
 * services read off the relay. Built once, at the end of the relay's constructor; what is set
 * later (the URLs once the server listens, the recent folders) is read when asked for. */
export function servicesOf(relay: Relay): ActionServices {
  const identity: Identity = {
    name: relay.name,
    version: relay.version,
    dataDir: relay.dataDir,
    defaultCwd: relay.defaultCwd,
    isSelf: (name) => relay.isSelfName(name),
  };
  return {
    identity,
    clock: relay.clock,
    settings: relay.settings,
    sessions: relay.sessions,
    turns: relay.turns,
    tasks: relay.tasks,
    questions: relay.questions,
    asks: relay.asks,
    approvals: relay.approvals,
    schedules: relay.schedules,
    watching: relay.watch.port,
    pairing: relay.pairing,
    workers: relay.workers,
    folders: relay.folders,
    address: {
      get mcpUrl() {
        return relay.mcpUrl;
      },
      get baseUrl() {
        return relay.baseUrl;
      },
      openUrl: (id) => relay.openUrl(id),
    },
    secrets: () => relay.secrets(),
    sessionReads: sessionReads(relay),
    groups: new Groups({ db: relay.db, clock: relay.clock, sessions: relay.sessions, identity }),
    probes: relay.probes,
    bus: relay.bus,
    transaction: (fn) => relay.db.transaction(fn)(),
  };
}
