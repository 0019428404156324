import type { ProviderAdapter } from "./adapters/types.ts";
import type { CustomAgent } from "../core/custom-agent-schema.ts";

// The owner's custom ACP agents (setting customAgents, contract §10.2) as providers: the
// catalog lists them after the built-in ones and the launcher starts them through the adapter
// below. The relay sets the list at start and whenever settings change (app/wire-providers.ts).

let agents: readonly CustomAgent[] = [];

/** The catalog's ProviderInfo for a custom agent (written out here: the catalog imports this module). */
export interface CustomProviderInfo {
  id: string;
  name: string;
  defaultModel: string;
  models: null;
  efforts: readonly ("low" | "medium" | "high")[];
  command: string;
  args: readonly string[];
  install: string;
  custom: true;
}

export function setCustomAgents(list: readonly CustomAgent[] | null | undefined): void {
  agents = list ?? [];
}

const info = (a: CustomAgent): CustomProviderInfo => ({
  id: a.id,
  name: a.name,
  // Models are whatever the agent advertises at session/new (probes.ts); until then any id passes.
  defaultModel: "default",
  models: null,
  efforts: ["low", "medium", "high"],
  command: a.command,
  args: a.args,
  install: "set its command in Settings → Providers → Custom agents",
  custom: true,
});

export function customProviders(): CustomProviderInfo[] {
  return agents.map(info);
}

export function customProvider(id: string): CustomProviderInfo | undefined {
  const a = agents.find((x) => x.id === id);
  return a && info(a);
}

// Mode ids ACP agents commonly advertise, most wanted first for each relay mode (Claude,
// Gemini, Qwen, Codex, opencode, goose and others); none offered: the agent's current mode,
// and its own permission requests still become cards in ask and plan.
const MODES = {
  agent: ["bypassPermissions", "yolo", "agent-full-access", "full-access", "auto", "build", "agent", "code"],
  ask: ["default", "ask", "read-only", "build", "agent"],
  plan: ["plan", "read-only", "architect"],
} as const;

export function customAdapter(id: string): ProviderAdapter | undefined {
  const a = agents.find((x) => x.id === id);
  if (!a) return undefined;
  return {
    id: a.id,
    binary: a.command,
    secretSettings: [],
    // Its variables are its own: another provider's worker never inherits them.
    secretEnv: Object.keys(a.env),
    launch: (ctx) => (ctx.binary ? { command: ctx.binary, args: [...a.args], env: { ...a.env } } : null),
    signIn: `sign in to ${a.name} the way its own documentation says, as the relay's user (its command: ${a.command})`,
    modes: MODES,
    customAgent: true,
  };
}
