import type { SecretSetting } from "../../core/settings.ts";
import type { Mode } from "../../sessions/types.ts";

// One adapter per real provider (STYLE.md "providers as data plus one adapter each"): how its
// agent process starts, which secrets are its own, how the relay's modes, models and efforts
// map onto what the CLI advertises, and its quirks. The worker pool, the probe and the ACP
// worker read adapters; none of them asks `provider === …`.

export interface LaunchSpec {
  command: string;
  args: string[];
  /** Added to the worker's environment (after other providers' secrets were taken out). */
  env?: Record<string, string>;
}

/** What a launch may read: the owner's settings (secrets included) and the resolved binary. */
export interface LaunchContext {
  settings: Record<string, unknown>;
  /** The binary's path when it is installed, else null. */
  binary: string | null;
  /** The environment the worker gets (the relay's minus other providers' secrets, env.ts):
   * what a launch decides on must be what the agent will find. */
  env: Record<string, string>;
}

/** An option the CLI advertised (a mode, a model, a config value). */
export interface Advertised {
  id: string;
  name: string;
  description?: string;
}

export interface ProviderAdapter {
  id: string;
  /** The binary it runs, looked up on PATH (the catalog's `install` says how to get it). */
  binary?: string;
  /** Owner settings holding this provider's secrets; every other provider secret is kept from its worker. */
  secretSettings: readonly SecretSetting[];
  /** Environment variables through which this provider takes its secrets (others' are removed from its worker). */
  secretEnv: readonly string[];
  /** The worker's launch, or null when it cannot start (not installed, not set up). */
  launch(ctx: LaunchContext): LaunchSpec | null;
  /** The command a person runs as the relay's user to sign in, or where to set a key. */
  signIn: string;
  /** Words added to `signIn` when the relay's environment holds a credential this agent is
   * not given (another provider's secret setting has the same value, env.ts). */
  withheld?(relayEnv: NodeJS.ProcessEnv, workerEnv: Record<string, string>): string | null;
  /** CLI mode ids to pick for each relay mode, most wanted first; none offered: the CLI's current mode. */
  modes?: Partial<Record<Mode, readonly string[]>>;
  /** The CLI takes `session/set_model` though it advertised no models (Copilot offline: any id). */
  setModelUnadvertised?: boolean;
  /** The CLI resolves model ids it did not list (Claude takes full Anthropic ids): always set the model. */
  acceptsUnlistedModels?: boolean;
  /** How an advertised model becomes a relay model id (default: its id). null: not a model to list. */
  modelId?(m: Advertised): string | null;
  /** A JSON-RPC notification (method, params) arrived: lets a quirk watch for what it waits on. */
  waitsForBeforeFirstPrompt?: { method: string; timeoutMs: number; why: string };
  /** The text of a prompt the agent takes as a command to reconnect one of its MCP servers
   * (Claude's `/mcp reconnect <server>`). Sent as the relay's own step, unseen in the
   * conversation and bounded by `timeoutMs`, before the first prompt to a worker a restarted
   * relay took back: the agent may never reconnect relay_tool by itself. */
  reconnectMcp?: { prompt(server: string): string; timeoutMs: number };
  /** The agent may give up on relay_tool's MCP server at start and never try again (Qwen Code
   * allows an HTTP server 5 s to be connected and listed, which its own cold start on a busy
   * machine overruns). Before a fresh worker's first prompt the relay waits until the agent
   * holds relay_tool (mcp/tool-listings.ts) or its stderr says `failed`; then it asks the
   * agent's extension `method` (with `params`) to connect again. `timeoutMs` bounds all of it
   * together: then the prompt goes out, and the session's agentStart note says relay_tool
   * was not available. */
  mcpRetry?: { failed: RegExp; method: string; params: Record<string, unknown>; timeoutMs: number };
  /** A turn that "succeeded" with a reply saying the credentials were refused (Copilot with a
   * wrong provider key ends end_turn with "Error: Authentication failed …"): the error text. */
  replyFailure?(reply: string): string | null;
  /** A command (the binary with these arguments, in the worker's environment) whose output
   * says whether someone is signed in: the probe asks it when the agent itself stays silent. */
  signInCheck?: { args: readonly string[]; signedIn(stdout: string): boolean | undefined };
  /** An owner-configured ACP agent (contract §10.2): available once it answers initialize, and
   * signed out only when it advertised sign-in methods and session/new asked for one. */
  customAgent?: boolean;
  /** Whether the sign-in status notification says nobody is signed in (Claude's `_auth/status_update`). */
  signedOut?(method: string, params: Record<string, unknown>): boolean | undefined;
}

/** `{ NAME: value }` when the setting holds a secret, else nothing. */
export function secretVar(name: string, value: unknown): Record<string, string> {
  return typeof value === "string" && value ? { [name]: value } : {};
}
