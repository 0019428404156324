import { userInfo } from "node:os";

// A turn that fails ends with a sentence naming the provider and what to do, never a raw
// JSON-RPC line ("Error: Authentication required"). The kinds the relay tells apart:

export type FailureKind = "auth" | "rate_limit" | "crash" | "protocol" | "config";

export class TurnFailure extends Error {
  constructor(
    message: string,
    readonly kind: FailureKind,
  ) {
    super(message);
  }
}

export interface FailureContext {
  providerName: string;
  relayName: string;
  /** How to sign in ("run `copilot login`"), from the adapter. */
  signIn: string;
  /** The agent's last stderr lines, for a crash. */
  stderr?: string;
}

/** The user the relay runs as: sign-in commands must be run as that user. */
export function relayUser(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? "the relay's user";
  }
}

const rpc = (err: unknown): { code?: number; message: string; data?: unknown } => {
  const e = (err && typeof err === "object" ? err : {}) as { code?: unknown; message?: unknown; data?: unknown };
  return {
    code: typeof e.code === "number" ? e.code : undefined,
    message: typeof e.message === "string" ? e.message : String(err),
    data: e.data,
  };
};

export function isAuthError(err: unknown): boolean {
  const { code, message, data } = rpc(err);
  const text = `${message} ${typeof data === "string" ? data : JSON.stringify(data ?? "")}`;
  // OpenAI-style "Incorrect API key provided" (opencode passes it on); Gemini: "API key not
  // valid" (a refused key), "API key is missing or not configured".
  return (
    code === -32000 ||
    /auth(entication|orization)? (required|failed)|not (logged|signed) in|invalid api key|incorrect api key|api key not valid|api key is missing|401\b|unauthori[sz]ed/i.test(
      text,
    )
  );
}

export function signInReason(ctx: Pick<FailureContext, "providerName" | "relayName" | "signIn">): string {
  const how = ctx.signIn.startsWith("run ") ? `${ctx.signIn} as ${relayUser()}` : ctx.signIn;
  return `${ctx.providerName} is not signed in on relay "${ctx.relayName}": ${how}`;
}

/** The error text of a failed turn. */
export function describeFailure(err: unknown, ctx: FailureContext): TurnFailure {
  if (err instanceof TurnFailure) return err;
  const { code, message, data } = rpc(err);
  // An agent of our own words its failures for the owner itself (JSON-RPC error data
  // `{ oar: { kind } }`, e.g. OpenAI Image's "OpenAI did not accept the API key (401): …"): kept as said.
  const own = (data && typeof data === "object" ? (data as { oar?: { kind?: unknown } }).oar : undefined)?.kind;
  if (own === "auth" || own === "rate_limit" || own === "config" || own === "protocol")
    return new TurnFailure(message, own);
  const detail = message.replace(/^(Error:\s*)+/i, "").trim();
  if (isAuthError(err))
    return new TurnFailure(`${signInReason(ctx)}, then send the message again. The turn did not run.`, "auth");
  if (/rate.?limit|too many requests|\b429\b|overloaded|quota|usage limit/i.test(detail)) {
    return new TurnFailure(
      `${ctx.providerName} hit a rate or usage limit (${detail.slice(0, 200)}). Wait a while and send the message again.`,
      "rate_limit",
    );
  }
  if (/exited during the turn|connection closed|process exited/i.test(detail)) {
    const tail = ctx.stderr?.trim().slice(-300);
    return new TurnFailure(
      `The ${ctx.providerName} agent process exited during the turn${tail ? ` (its last output: ${tail})` : ""}. The next message starts it again; if it keeps failing, check the ${ctx.providerName} install on relay "${ctx.relayName}".`,
      "crash",
    );
  }
  const where = code !== undefined ? ` (ACP error ${code})` : "";
  return new TurnFailure(
    `${ctx.providerName} reported an error${where}: ${detail.slice(0, 500) || "no details"}. Send the message again; if it keeps failing, use Kill session to restart its agent.`,
    "protocol",
  );
}
