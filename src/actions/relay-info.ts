import { platform, arch } from "node:os";
import { defineAction } from "./define.ts";
import { defaultModelOf, modelsOf, providerAvailability, providerList } from "../providers/catalog.ts";
import { probeResult } from "../providers/probe-cache.ts";
import { UNKNOWN_CAPABILITIES } from "../providers/capabilities.ts";
import { openAiAgentName, refreshOpenAiAgents } from "../providers/openai-agent/provider.ts";

export function providersInfo(settings: Record<string, unknown>) {
  return providerList().map((p) => {
    const a = providerAvailability(p.id, { settings });
    return {
      id: p.id,
      name: openAiAgentName(p.id, settings, p.name),
      available: a.available,
      ...(a.reason ? { reason: a.reason } : {}),
      defaultModel: defaultModelOf(p),
      models: [...(modelsOf(p) ?? [])],
      efforts: [...p.efforts],
      // No list yet (model discovery did not run or failed): models pass unchecked.
      ...(modelsOf(p) === null
        ? {
            modelNote: `No model list for ${p.name} yet (model discovery did not run or failed); model ids pass unchecked.`,
          }
        : {}),
      // Contract §10.2: what its agent's initialize advertised (false where not known yet).
      capabilities: { ...(probeResult(p.id)?.capabilities ?? UNKNOWN_CAPABILITIES) },
    };
  });
}

export const relayInfo = defineAction({
  name: "relay_info",
  since: "0.9.4",
  write: false,
  level: "read",
  nothing: "Nothing was done.",
  args: {},
  async handler({ identity, settings: store, folders, caller, probes, groups: groupList }) {
    const settings = store.get();
    // DeepSeek / OpenAI-compatible: their models endpoint says which models exist and whether
    // the key works; an installed CLI's first sign-in check, when it still runs, is waited for.
    await Promise.all([
      refreshOpenAiAgents(settings as unknown as Record<string, unknown>),
      probes.firstChecks(providerList().map((p) => p.id)),
    ]);
    const groups = groupList.info();
    return {
      summary: `relay_info → ${identity.name}: OAR ${identity.version}, ${groups.groups?.length ?? 0} group${groups.groups?.length === 1 ? "" : "s"}`,
      name: identity.name,
      version: identity.version,
      platform: `${platform()}-${arch()}`,
      acceptsAgentPrompts: settings.acceptPromptsFromOtherRelays,
      mode: caller.mode,
      defaultCwd: identity.defaultCwd,
      recentCwds: folders.recent(),
      providers: providersInfo(settings as unknown as Record<string, unknown>),
      ...groups,
    };
  },
});
