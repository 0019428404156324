import type { Bus } from "../core/bus.ts";
import type { Clock } from "../core/clock.ts";
import type { SettingsStore } from "../core/settings.ts";
import type { Approvals } from "../approvals/approvals.ts";
import { answerPermission } from "../approvals/permission-cards.ts";
import type { Usage } from "./activity.ts";
import { adapterFor } from "./adapters/index.ts";
import { getProvider } from "./catalog.ts";
import { forgetProbe, noteModels } from "./probe-cache.ts";
import { setCustomAgents } from "./custom-agents.ts";
import { ProviderProbes } from "./probes.ts";
import { refreshOpenAiAgents } from "./openai-agent/provider.ts";
import type { WorkerEnv } from "./workers.ts";

// The provider layer's ties to the rest of the relay, in one place so relay.ts stays a list:
// permission requests go to approvals, usage to the Claude API monthly spend, sign-in
// failures and changed provider settings to the probes.

export interface ProviderWiringDeps {
  relayName: string;
  clock: Clock;
  bus: Bus;
  settings: SettingsStore;
  approvals: () => Approvals;
}

export type ProviderWorkerEnv = Pick<WorkerEnv, "relayName" | "settings" | "permission" | "onModels" | "onAuthFailure" | "onUsage" | "maxWorkers">;

export function wireProviders(d: ProviderWiringDeps): { probes: ProviderProbes; workerEnv: ProviderWorkerEnv } {
  const settings = () => d.settings.get() as unknown as Record<string, unknown>;
  const probes = new ProviderProbes({ relayName: d.relayName, settings, now: () => d.clock.now() });

  // A provider's secret setting changed: what it can do may have changed with it.
  const secretsOf = (id: string) => JSON.stringify((adapterFor(id)?.secretSettings ?? []).map((k) => settings()[k] ?? null));
  const seen = new Map<string, string>();
  const remember = () => {
    for (const id of ["claude", "claude-api", "claude-cloud", "copilot", "grok"]) seen.set(id, secretsOf(id));
  };
  remember();
  // DeepSeek / OpenAI-compatible: their models endpoint is asked at start and when settings change.
  const askEndpoints = () => void refreshOpenAiAgents(settings(), false, 0);
  askEndpoints();
  // Custom agents (contract §10.2) are providers from the settings: one that is new or changed is probed again.
  const customs = () => new Map(d.settings.get().customAgents.map((a) => [a.id, JSON.stringify(a)]));
  let customSeen = customs();
  setCustomAgents(d.settings.get().customAgents);
  d.bus.on((e) => {
    if (e.type !== "settings.updated") return;
    askEndpoints();
    for (const [id, before] of seen) if (secretsOf(id) !== before) void probes.check(id, true);
    remember();
    const now = customs();
    setCustomAgents(d.settings.get().customAgents);
    for (const [id, json] of now) if (customSeen.get(id) !== json) void probes.check(id, true);
    for (const id of customSeen.keys()) if (!now.has(id)) forgetProbe(id);
    customSeen = now;
  });

  const workerEnv: ProviderWorkerEnv = {
    relayName: d.relayName,
    settings,
    permission: (p, req, signal) => {
      const s = d.settings.get();
      return answerPermission(d.approvals(), {
        sessionId: p.sessionId, turnId: p.turnId, mode: p.mode, relayName: d.relayName,
        providerName: getProvider(p.provider)?.name ?? p.provider, waitMinutes: s.longestWaitMinutes, now: d.clock.now(),
      }, req, signal);
    },
    onModels: (provider, models) => noteModels(provider, models),
    onAuthFailure: (provider) => void probes.authFailed(provider),
    onUsage: (provider, _sessionId, usage: Usage) => {
      // The Claude API key's monthly spend feeds its cap (billing/cap.ts) by itself.
      if (provider !== "claude-api" || !usage.costUsd) return;
      const spent = d.settings.get().claudeApiSpentUsd;
      d.settings.update({ claudeApiSpentUsd: Math.round((spent + usage.costUsd) * 1e6) / 1e6 });
      d.bus.emit({ type: "settings.updated" });
    },
    // contract §9.3 (setting maxWorkers, default 8).
    maxWorkers: () => d.settings.get().maxWorkers,
  };
  return { probes, workerEnv };
}
