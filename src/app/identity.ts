import { homedir, hostname } from "node:os";
import { join } from "node:path";
import type { Identity } from "../actions/services.ts";

export const VERSION = "0.9.19";

export interface IdentityOptions {
  dataDir?: string;
  name?: string;
  emulateVersion?: string;
}

/** Who this relay is: its name (the host's by default), the version it presents, its data
 * folder (~/.oar by default) and where a session starts when nothing names a folder. */
export function makeIdentity(opts: IdentityOptions): Identity {
  const name = opts.name ?? hostname();
  return {
    name,
    version: opts.emulateVersion ?? VERSION,
    dataDir: opts.dataDir ?? join(homedir(), ".oar"),
    defaultCwd: homedir(),
    isSelf: (relay) => {
      const r = relay.trim().toLowerCase();
      return r === "this" || r === name.toLowerCase();
    },
  };
}
