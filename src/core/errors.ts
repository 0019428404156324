// One error type for every refusal the relay gives. `code` is one of the contract's
// codes (contract.md §6); `message` is the exact text the agent or owner reads, and
// always says what was not done. `extra` carries fields that go into the result
// beside `code` and `error` (suggestions, models, groups, remoteCode, …).

export const ERROR_CODES = [
  "REMOTE_RELAY_INVALID_INPUT",
  "REMOTE_RELAY_UNKNOWN_ACTION",
  "REMOTE_RELAY_NOT_FOUND",
  "REMOTE_RELAY_LOCKED",
  "REMOTE_RELAY_DISABLED",
  "REMOTE_RELAY_PERMISSION",
  "REMOTE_RELAY_FORBIDDEN",
  "REMOTE_RELAY_NO_ACTIVE_TURN",
  "REMOTE_RELAY_APPROVAL_TIMEOUT",
  "REMOTE_RELAY_BUSY",
  "REMOTE_RELAY_LIMIT",
  "REMOTE_RELAY_SUBSCRIPTION_LIMIT",
  "REMOTE_RELAY_SCHEDULE_LIMIT",
  "REMOTE_RELAY_QUESTION_LIMIT",
  "REMOTE_RELAY_HOP_LIMIT",
  "REMOTE_RELAY_UNKNOWN_MODEL",
  "REMOTE_RELAY_UNKNOWN_GROUP",
  "REMOTE_RELAY_PROVIDER_UNAVAILABLE",
  "REMOTE_RELAY_UNSUPPORTED",
  "REMOTE_RELAY_OFFLINE",
  "REMOTE_RELAY_AUTH",
  "REMOTE_RELAY_ARCHIVED",
  "REMOTE_RELAY_CLAIMED",
  "COPILOT_MODEL_UNAVAILABLE",
  "CLAUDE_PROVIDER_REQUIRED",
  "CLAUDE_API_CAP_REACHED",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export class RelayError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "RelayError";
  }

  toJSON(): Record<string, unknown> {
    return { ok: false, code: this.code, error: this.message, ...this.extra };
  }
}

/** HTTP status the owner API answers a refusal with. */
export function httpStatusOf(code: ErrorCode): 400 | 401 | 403 | 404 | 409 | 429 | 502 | 504 {
  switch (code) {
    case "REMOTE_RELAY_NOT_FOUND":
    case "REMOTE_RELAY_UNKNOWN_ACTION":
      return 404;
    case "REMOTE_RELAY_PERMISSION":
    case "REMOTE_RELAY_FORBIDDEN":
    case "REMOTE_RELAY_DISABLED":
    case "REMOTE_RELAY_LOCKED":
      return 403;
    case "REMOTE_RELAY_BUSY":
    case "REMOTE_RELAY_CLAIMED":
    case "REMOTE_RELAY_ARCHIVED":
    case "REMOTE_RELAY_NO_ACTIVE_TURN":
      return 409;
    case "REMOTE_RELAY_LIMIT":
    case "REMOTE_RELAY_SUBSCRIPTION_LIMIT":
    case "REMOTE_RELAY_SCHEDULE_LIMIT":
    case "REMOTE_RELAY_QUESTION_LIMIT":
    case "REMOTE_RELAY_HOP_LIMIT":
    case "CLAUDE_API_CAP_REACHED":
      return 429;
    case "REMOTE_RELAY_OFFLINE":
      return 502;
    case "REMOTE_RELAY_APPROVAL_TIMEOUT":
      return 504;
    case "REMOTE_RELAY_AUTH":
      return 401;
    default:
      return 400;
  }
}
