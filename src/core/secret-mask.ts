import type { Db } from "../store/db.ts";
import { MASK } from "../tasks/mask-secrets.ts";

// Secrets that reach message text (a key pasted into a prompt, a token sent to another agent)
// are masked wherever text leaves the relay: relay_tool results, the owner API, the UI stream.
// Cheap by design, since it runs on every answer: the few known values (owner token, provider
// keys) are matched as plain substrings, and agent tokens — one per session, thousands of
// them — are found by their shape (newToken: 32 base64url characters) and then looked up
// one by one on the unique index, instead of reading every session's token per call.

const TOKEN_LENGTH = 32;
// Only from the start of a run (the look-behind): tried at every position inside a run, the
// plain pattern cost runs² steps and was most of the masking of a 16 KB answer (366 → 155 µs).
const TOKEN_RUN = /(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{32,}/g;
const LONG_RUN = 256;

export class SecretMask {
  private isAgentToken: (t: string) => boolean;

  constructor(
    db: Db,
    /** The owner token and the provider secrets: held in memory by their owners. */
    private known: () => string[],
  ) {
    const q = db.prepare("SELECT 1 FROM sessions WHERE agent_token = ?").pluck();
    this.isAgentToken = (t) => q.get(t) !== undefined;
    const many = db.prepare("SELECT agent_token FROM sessions WHERE agent_token IN (SELECT value FROM json_each(?))").pluck();
    this.agentTokensAmong = (ts) => new Set(many.all(JSON.stringify(ts)) as string[]);
  }

  /** Which of these strings are agent tokens: one look-up for all the windows of a run (a
   * list page's nextCursor alone is ~15 of them) instead of one each. */
  private agentTokensAmong: (ts: string[]) => Set<string>;

  /** Masks every secret in plain text. */
  maskText(text: string): string {
    if (!text) return text;
    let out = text;
    for (const s of this.known()) {
      if (s && s.length >= 8 && out.includes(s)) out = out.split(s).join(MASK);
    }
    return out.replace(TOKEN_RUN, (run) => this.maskRun(run));
  }

  /** Masks secrets inside serialized JSON: the same values, also in their JSON-escaped form. */
  maskJson(json: string): string {
    if (!json) return json;
    let out = json;
    for (const s of this.known()) {
      if (!s || s.length < 8) continue;
      const escaped = JSON.stringify(s).slice(1, -1);
      for (const form of escaped === s ? [s] : [s, escaped]) if (out.includes(form)) out = out.split(form).join(MASK);
    }
    return out.replace(TOKEN_RUN, (run) => this.maskRun(run));
  }

  /** A run of token characters may hold a token glued to other text: every 32-character
   * window is a candidate (runs this long are rare in ordinary text). */
  private maskRun(run: string): string {
    if (run.length === TOKEN_LENGTH) return this.isAgentToken(run) ? MASK : run;
    // A long run is data (base64 of a file, a hash list): only its ends are looked at, so a
    // megabyte of it does not cost a million look-ups.
    if (run.length > LONG_RUN) {
      const head = run.slice(0, TOKEN_LENGTH);
      const tail = run.slice(-TOKEN_LENGTH);
      const mid = run.slice(TOKEN_LENGTH, -TOKEN_LENGTH);
      return (this.isAgentToken(head) ? MASK : head) + mid + (this.isAgentToken(tail) ? MASK : tail);
    }
    const windows: string[] = [];
    for (let j = 0; j <= run.length - TOKEN_LENGTH; j++) windows.push(run.slice(j, j + TOKEN_LENGTH));
    const tokens = this.agentTokensAmong(windows);
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
