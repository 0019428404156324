import { defineAction } from "./define.ts";
import { MAX_WORKING } from "./target.ts";

export const listRelays = defineAction({
  name: "list_relays",
  since: "0.9.4",
  write: false,
  level: "none",
  nothing: "Nothing was done.",
  args: {},
  noSettingNeeded: true,
  handler({ settings, identity, pairing, caller, remote }) {
    const on = settings.get().agentSessions;
    const self = on
      ? [
          {
            name: identity.name,
            self: true,
            online: true,
            version: identity.version,
            permission: "full",
            unlocked: true,
          },
        ]
      : [];
    // Paired relays as last seen by their link (never a live call here: a dead relay must not
    // slow this down). A stand-in caller from another relay sees none of this relay's pairings.
    const paired = remote
      ? []
      : pairing.store.relays().map((r) => ({
          name: r.name,
          url: r.url,
          online: !!r.online,
          version: r.version,
          permission: r.agents_may,
          unlocked: pairing.isUnlocked(caller.id, r),
        }));
    const relays = [...self, ...paired];
    const unlocked = relays.filter((r) => r.unlocked).length;
    const locked = paired.filter((r) => !r.unlocked && r.permission !== "off");
    return {
      summary: `list_relays: ${relays.length} relay${relays.length === 1 ? "" : "s"}, ${unlocked} unlocked`,
      self: { name: identity.name },
      relays,
      limits: { maxWaitSeconds: settings.get().longestWaitMinutes * 60, maxActiveSessions: MAX_WORKING },
      ...(on
        ? {}
        : {
            note: `Agents may not start or use sessions on this relay ("Agents may start and use sessions on this relay" is off)${paired.some((r) => r.permission !== "off") ? "; paired relays below may be used" : ", and no paired relay allows more"}.`,
          }),
      ...(locked.length
        ? {
            lockedNote: `Locked in this conversation: ${locked.map((r) => r.name).join(", ")}. Ask the user to mention a relay (@name) in a message here to unlock it.`,
          }
        : {}),
    };
  },
});
