import type { Bus } from "../core/bus.ts";
import type { Clock } from "../core/clock.ts";
import type { SettingsStore } from "../core/settings.ts";
import type { Approvals } from "../approvals/approvals.ts";
import { answerPermission } from "../approvals/permission-cards.ts";
import type { Usage } from "../providers/activity.ts";
import { adapterFor } from "../providers/adapters/index.ts";
import { getProvider } from "../providers/catalog.ts";
import { forgetProbe, noteModels } from "../providers/probe-cache.ts";
import { setCustomAgents } from "../providers/custom-agents.ts";
import { ProviderProbes } from "../providers/probes.ts";
import { refreshOpenAiAgents } from "../providers/openai-agent/provider.ts";
import { Workers, type SessionFiles } from "../providers/workers.ts";
import type { WorkerPipes } from "../providers/worker-pipes.ts";
import { RELAY_MCP_NAME, type McpEntry } from "../providers/acp-worker.ts";
import type { SessionRow } from "../sessions/types.ts";
import type { SessionStore } from "../sessions/session-store.ts";
import type { TurnRunner } from "../sessions/turns.ts";
import type { TaskStore } from "../tasks/task-store.ts";
import type { Questions } from "../questions/ask-user.ts";
import type { Address } from "../actions/services.ts";
import type { ToolListings } from "../mcp/tool-listings.ts";

// The provider layer's ties to the rest of the relay, in one place so app/build.ts stays a
// list: the probes, the worker pool (its sessions, tasks, ask_user cards, the MCP entry an
// agent gets) and the turn runner on it; permission requests go to approvals, usage to the
// Claude API monthly spend, sign-in failures and changed provider settings to the probes.

export interface ProviderWiringDeps {
  relayName: string;
  clock: Clock;
  bus: Bus;
  settings: SettingsStore;
  approvals: Approvals;
  sessions: Pick<SessionStore, "get" | "state" | "markPrompted" | "activeTurns" | "update">;
  tasks: Pick<TaskStore, "report" | "output" | "agentGone">;
  questions: Pick<Questions, "askUser">;
  /** Where agents reach /mcp (set once the server listens). */
  address: Pick<Address, "mcpUrl">;
  /** contract §5.1: whether relay_tool is offered to agents at all. */
  toolOffered(): boolean;
  pipes: WorkerPipes;
  idleMinutes: number;
  /** Whose agents have listed relay_tool on /mcp. */
  toolListings: Pick<ToolListings, "heldFor" | "counts" | "next">;
  /** An agent's file reads and writes, checked against claims (src/worktrees/). */
  files: SessionFiles;
}

export interface Providers {
  probes: ProviderProbes;
  workers: Workers;
  /** How a turn reaches its session's worker (sessions/turns.ts). */
  runner: TurnRunner;
  /** Listens for changed provider settings and ended tasks: called where the relay wired them
   * before, so the bus's listeners keep their order. */
  listen(): void;
}

/** A session's entry for its agent's MCP configuration: relay_tool at this relay's /mcp, with
 * the session's own agent token. */
export function mcpEntry(address: Pick<Address, "mcpUrl">, s: SessionRow): McpEntry {
  return { name: RELAY_MCP_NAME, url: address.mcpUrl, headers: { Authorization: `Bearer ${s.agent_token}` } };
}

export function wireProviders(d: ProviderWiringDeps): Providers {
  const settings = () => d.settings.get() as unknown as Record<string, unknown>;
  const probes = new ProviderProbes({ relayName: d.relayName, settings, now: () => d.clock.now() });

  // A provider's secret setting changed: what it can do may have changed with it.
  const secretsOf = (id: string) =>
    JSON.stringify((adapterFor(id)?.secretSettings ?? []).map((k) => settings()[k] ?? null));
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
  const onSettings = () =>
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

  const workers = new Workers({
    relayName: d.relayName,
    settings,
    permission: (p, req, signal) => {
      const s = d.settings.get();
      return answerPermission(
        d.approvals,
        {
          sessionId: p.sessionId,
          turnId: p.turnId,
          mode: p.mode,
          relayName: d.relayName,
          providerName: getProvider(p.provider)?.name ?? p.provider,
          waitMinutes: s.longestWaitMinutes,
          now: d.clock.now(),
          cwd: d.sessions.get(p.sessionId)?.cwd,
        },
        req,
        signal,
      );
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
    clock: d.clock,
    pipes: d.pipes,
    files: d.files,
    idleMinutes: d.idleMinutes,
    onPrompt: (turnId) => d.sessions.markPrompted(turnId, d.clock.now()),
    onAgentStart: (id, record) => d.sessions.update(id, { acp_session_id: record }),
    session: (id) => d.sessions.get(id),
    mcpEntry: (s) => (d.toolOffered() ? mcpEntry(d.address, s) : null),
    busy: (id) => d.sessions.state(id) !== "idle",
    hostFor: (sessionId) => ({
      onTask: (t) => d.tasks.report(sessionId, t),
      onTaskOutput: (taskId, chunk) => d.tasks.output(sessionId, taskId, chunk),
      toolListings: {
        heldFor: () => d.toolListings.heldFor(sessionId),
        counts: () => d.toolListings.counts(sessionId),
        next: (ms) => d.toolListings.next(sessionId, ms),
      },
      askUser: (q, signal) => {
        const turn = d.sessions.activeTurns(sessionId).find((t) => t.status === "running");
        return d.questions.askUser(sessionId, turn?.id ?? null, q.question, q.options, signal);
      },
    }),
    onWorkerExit: (id, expected) => {
      // Its background tasks can no longer report: they end with the process.
      d.tasks.agentGone(id);
      // A death during a turn ends that turn through the worker's run (providers/workers.ts),
      // with the provider's name and its last output.
      void expected;
    },
  });

  const runner: TurnRunner = {
    run: (sessionId, turn, text, onChunk, signal) => {
      const session = d.sessions.get(sessionId);
      if (!session) return Promise.reject(new Error("The session was deleted."));
      return workers.run(session, turn, text, onChunk, signal);
    },
    abandon: (sessionId) => workers.kill(sessionId),
    recorded: (sessionId, turnId) => workers.recorded(sessionId, turnId),
    promptsAtOnce: (session, turn) => workers.promptsAtOnce(session, turn),
    resume: (sessionId, turn, onChunk, signal) => {
      const session = d.sessions.get(sessionId);
      if (!session) return Promise.reject(new Error("The session was deleted."));
      return workers.resume(session, turn, onChunk, signal);
    },
  };

  const listen = () => {
    onSettings();
    // A session whose last task ended is idle: its worker may now make room for a waiting turn.
    d.bus.on((e) => {
      if (e.type === "task.updated" && e.status !== "running") workers.recheck();
    });
  };
  return { probes, workers, runner, listen };
}
