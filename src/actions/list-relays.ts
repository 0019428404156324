import type { ActionDef } from "./types.ts";
import { MAX_WORKING } from "./target.ts";

export const listRelays: ActionDef = {
  name: "list_relays",
  since: "0.9.4",
  write: false,
  level: "none",
  args: {},
  noSettingNeeded: true,
  handler(ctx) {
    const { relay } = ctx;
    const on = relay.settings.get().agentSessions;
    const relays = on ? [{ name: relay.name, self: true, online: true, version: relay.version, permission: "full", unlocked: true }] : [];
    const unlocked = relays.filter((r) => r.unlocked).length;
    return {
      summary: `list_relays: ${relays.length} relay${relays.length === 1 ? "" : "s"}, ${unlocked} unlocked`,
      self: { name: relay.name },
      relays,
      limits: { maxWaitSeconds: relay.settings.get().longestWaitMinutes * 60, maxActiveSessions: MAX_WORKING },
      ...(on ? {} : { note: `Agents may not start or use sessions on this relay ("Agents may start and use sessions on this relay" is off), and no paired relay allows more.` }),
    };
  },
};
