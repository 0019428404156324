import { claude } from "./claude.ts";
import type { ProviderAdapter } from "./types.ts";

// Claude Cloud: the Claude adapter (claude.ts: modes, models, sign-in status) signed in with
// the owner's cloud token — the long-lived OAuth token `claude setup-token` prints, which
// Claude Code reads from CLAUDE_CODE_OAUTH_TOKEN (checked in claude-agent-acp 0.101.0's Claude
// Code). Any other Anthropic credential of the relay's environment is kept from the worker
// (env.ts), so the session is billed to that account alone. It runs in a clone of the
// session's repository (src/cloud/).
export const claudeCloud: ProviderAdapter = {
  ...claude,
  id: "claude-cloud",
  secretSettings: ["claudeCloudToken"],
  secretEnv: ["CLAUDE_CODE_OAUTH_TOKEN"],
  launch(ctx) {
    const token = ctx.settings.claudeCloudToken;
    if (typeof token !== "string" || !token) return null;
    const spec = claude.launch(ctx);
    return spec && { ...spec, env: { ...spec.env, CLAUDE_CODE_OAUTH_TOKEN: token } };
  },
  // Not "run …": the relay appends "as <relay user>" to those, but the token is made by the
  // owner wherever they are signed in to Claude and lives in the relay's settings.
  signIn:
    "add the token `claude setup-token` prints (run it wherever you are signed in to Claude) as the cloud token in Settings → Providers",
  // The adapter maps a CLAUDE_CODE_OAUTH_TOKEN login (`claude auth status`: loggedIn true,
  // authMethod "oauth_token", no plan, no key source) to `_auth/status_update { kind: "none",
  // "Not logged in" }`, so that notice cannot tell signed out here: only a signed-in kind
  // counts, and the probe asks `claude auth status` itself (signInCheck reads `loggedIn`).
  signedOut(method, params) {
    return claude.signedOut?.(method, params) === false ? false : undefined;
  },
};
