import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";

/** Prefixed random ids (`ses_…`, `msg_…`): readable in logs, unguessable, sortable by nothing. */
export function newId(prefix: string, length = 12): string {
  const bytes = randomBytes(length);
  let out = "";
  for (const b of bytes) out += ALPHABET[b % 36];
  return `${prefix}_${out}`;
}

export function newToken(): string {
  return randomBytes(24).toString("base64url");
}
