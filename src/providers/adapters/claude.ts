import type { Advertised, LaunchContext, LaunchSpec, ProviderAdapter } from "./types.ts";

// Claude through the Claude ACP adapter (@agentclientprotocol/claude-agent-acp, pinned
// 0.101.0; STACK.md "Agent CLIs, checked").
// - Root: Claude Code refuses its permission-bypass mode for root ("--dangerously-skip-
//   permissions cannot be used with root/sudo privileges") unless IS_SANDBOX=1, its own
//   switch for containers and sandboxes. The relay sets it only when it runs as root, and the
//   docs/providers.md says so; the relay's mode still decides what is allowed (cards in ask and plan).
// - Models arrive as aliases ("opus", named "Opus 5.5"); the relay lists Anthropic ids
//   ("claude-opus-5-5") made from the names, and sets the alias (set_config_option refuses full ids).

export const CLAUDE_BINARY = "claude-agent-acp";

function launchClaude(ctx: LaunchContext, extra: Record<string, string> = {}): LaunchSpec | null {
  if (!ctx.binary) return null;
  const env: Record<string, string> = { ...extra };
  // Claude Code accepts only exactly "1" (a machine's IS_SANDBOX=yes breaks session/new as root).
  if (typeof process.getuid === "function" && process.getuid() === 0) env.IS_SANDBOX = "1";
  // A wrong key makes Claude Code retry for minutes with nothing on ACP; a few retries end the
  // turn as "Authentication required" in seconds (cli-findings.md). The relay's own value wins.
  if (!process.env.CLAUDE_CODE_MAX_RETRIES) env.CLAUDE_CODE_MAX_RETRIES = "2";
  return { command: ctx.binary, args: [], env };
}

/** "Opus 5.5" → "claude-opus-5-5"; the "default" entry is not a model of its own. */
export function claudeModelId(m: Advertised): string | null {
  if (m.id === "default") return null;
  if (m.id.startsWith("claude-")) return m.id;
  const named = /^([A-Za-z]+)\s+(\d+(?:\.\d+)*)/.exec(m.name.trim());
  return named ? `claude-${named[1].toLowerCase()}-${named[2].replace(/\./g, "-")}` : m.id;
}

const CLAUDE_MODES = {
  // The most autonomous mode it offers: bypass (with IS_SANDBOX as root), else auto, else accept edits.
  agent: ["bypassPermissions", "auto", "acceptEdits"],
  ask: ["default"],
  plan: ["plan"],
} as const;

// The adapter pushes its status only after its own `claude auth status` answers within 5 s,
// which a loaded machine misses (then it says nothing): the probe asks the same command itself.
const signInCheck = {
  args: ["--cli", "auth", "status", "--json"],
  signedIn(stdout: string): boolean | undefined {
    try {
      const v = (JSON.parse(stdout) as { loggedIn?: unknown }).loggedIn;
      return typeof v === "boolean" ? v : undefined;
    } catch {
      return undefined;
    }
  },
};

// After a relay restart Claude Code (2.1.318) reconnects its MCP servers with a backoff of
// 1, 2, 4, 8, 16 s, then only now and then in the background, and once in ~8 restarts never:
// relay_tool is then gone from that agent. The adapter has no ACP method for it, but takes a
// prompt that is exactly `/mcp reconnect <server>` as a local command (mcp-command.js: no
// model request; it waits for the reconnect, at most 30 s, and reads the status twice).
const reconnectMcp = { prompt: (server: string) => `/mcp reconnect ${server}`, timeoutMs: 45_000 };

const signedOut = (method: string, params: Record<string, unknown>) => {
  if (method !== "_auth/status_update") return undefined;
  const kind = (params.authStatus as { kind?: unknown } | undefined)?.kind;
  return typeof kind === "string" ? kind === "none" : undefined;
};

export const claude: ProviderAdapter = {
  id: "claude",
  binary: CLAUDE_BINARY,
  secretSettings: [],
  // Claude Code's own variables: a relay started with them (an offline set-up, a key) passes them on.
  secretEnv: ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"],
  launch: (ctx) => launchClaude(ctx),
  signIn: "run `claude-agent-acp --cli` and sign in with /login",
  modes: CLAUDE_MODES,
  modelId: claudeModelId,
  signedOut,
  signInCheck,
  reconnectMcp,
};

// The same adapter billed to the owner's API key (setting claudeApiKey).
export const claudeApi: ProviderAdapter = {
  id: "claude-api",
  binary: CLAUDE_BINARY,
  secretSettings: ["claudeApiKey"],
  secretEnv: ["ANTHROPIC_API_KEY"],
  launch(ctx) {
    const key = ctx.settings.claudeApiKey;
    if (typeof key !== "string" || !key) return null;
    return launchClaude(ctx, { ANTHROPIC_API_KEY: key });
  },
  signIn: "add the API key in Settings → Providers",
  modes: CLAUDE_MODES,
  modelId: claudeModelId,
  signedOut,
  signInCheck,
  reconnectMcp,
};
