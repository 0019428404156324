// Secrets that reach message text (a key pasted into a prompt, a token sent to another agent)
// are masked wherever text leaves the relay: relay_tool results, the owner API, the UI stream.
// Cheap by design, since it runs on every answer: the few known values (owner token, provider
// keys) are matched as plain substrings, and agent tokens — one per session, thousands of
// them — are found by their shape (newToken: 32 base64url characters) and then looked up
// one by one on the unique index, instead of reading every session's token per call.

/** What a masked secret reads as, here and in task output (tasks/mask-secrets.ts). */
export const MASK = "****";

const TOKEN_LENGTH = 32;
const LONG_RUN = 256;

/** base64url characters, the alphabet of agent tokens. */
const TOKEN_CHAR = new Uint8Array(128);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") TOKEN_CHAR[c.charCodeAt(0)] = 1;
const isTokenChar = (c: number) => c < 128 && TOKEN_CHAR[c] === 1;

/**
 * `text.replace(/[A-Za-z0-9_-]{32,}/g, fn)`, by skipping: a run of 32 or more token characters
 * covers one of every 32 positions, so only every 32nd character is looked at until one is a
 * token character, and only then is its run measured. This runs on every answer: the pattern
 * retried at every position inside every run (a 16 KB list page: 420 µs; 18 µs this way).
 */
export function replaceTokenRuns(text: string, fn: (run: string) => string): string {
  let out: string | undefined;
  let last = 0;
  const n = text.length;
  for (let i = TOKEN_LENGTH - 1; i < n; ) {
    if (!isTokenChar(text.charCodeAt(i))) {
      i += TOKEN_LENGTH;
      continue;
    }
    let start = i;
    while (start > 0 && isTokenChar(text.charCodeAt(start - 1))) start--;
    let end = i + 1;
    while (end < n && isTokenChar(text.charCodeAt(end))) end++;
    if (end - start >= TOKEN_LENGTH) {
      const run = text.slice(start, end);
      const masked = fn(run);
      if (masked !== run) {
        out = (out ?? "") + text.slice(last, start) + masked;
        last = end;
      }
    }
    // text[end] is not a token character: a run after it that is long enough covers end + 32.
    i = end + TOKEN_LENGTH;
  }
  return out === undefined ? text : out + text.slice(last);
}

export interface SecretMaskDeps {
  /** The owner token and the provider secrets: held in memory by their owners. */
  known(): string[];
  /** Whether a run of exactly 32 token characters is an agent token (sessions/agent-tokens.ts). */
  isAgentToken(t: string): boolean;
  /** Which of these strings are agent tokens: one look-up for all the windows of a run (a
   * list page's nextCursor alone is ~15 of them) instead of one each. */
  agentTokensAmong(ts: string[]): Set<string>;
}

export class SecretMask {
  constructor(private d: SecretMaskDeps) {}

  /** Masks every secret in plain text. */
  maskText(text: string): string {
    if (!text) return text;
    let out = text;
    for (const s of this.d.known()) {
      if (s && s.length >= 8 && out.includes(s)) out = out.split(s).join(MASK);
    }
    return replaceTokenRuns(out, (run) => this.maskRun(run));
  }

  /** Masks secrets inside serialized JSON: the same values, also in their JSON-escaped form. */
  maskJson(json: string): string {
    if (!json) return json;
    let out = json;
    for (const s of this.d.known()) {
      if (!s || s.length < 8) continue;
      const escaped = JSON.stringify(s).slice(1, -1);
      for (const form of escaped === s ? [s] : [s, escaped]) if (out.includes(form)) out = out.split(form).join(MASK);
    }
    return replaceTokenRuns(out, (run) => this.maskRun(run));
  }

  /** A run of token characters may hold a token glued to other text: every 32-character
   * window is a candidate (runs this long are rare in ordinary text). */
  private maskRun(run: string): string {
    if (run.length === TOKEN_LENGTH) return this.d.isAgentToken(run) ? MASK : run;
    // A long run is data (base64 of a file, a hash list): only its ends are looked at, so a
    // megabyte of it does not cost a million look-ups.
    if (run.length > LONG_RUN) {
      const head = run.slice(0, TOKEN_LENGTH);
      const tail = run.slice(-TOKEN_LENGTH);
      const mid = run.slice(TOKEN_LENGTH, -TOKEN_LENGTH);
      return (this.d.isAgentToken(head) ? MASK : head) + mid + (this.d.isAgentToken(tail) ? MASK : tail);
    }
    const windows: string[] = [];
    for (let j = 0; j <= run.length - TOKEN_LENGTH; j++) windows.push(run.slice(j, j + TOKEN_LENGTH));
    const tokens = this.d.agentTokensAmong(windows);
    if (!tokens.size) return run;
    let out = "";
    let i = 0;
    while (i <= run.length - TOKEN_LENGTH) {
      const w = run.slice(i, i + TOKEN_LENGTH);
      if (tokens.has(w)) {
        out += MASK;
        i += TOKEN_LENGTH;
      } else {
        out += run[i];
        i++;
      }
    }
    return out + run.slice(i);
  }
}
