// SecretMask (src/core/secret-mask.ts) on the relay's real SQLite schema: agent tokens are
// found by their shape and looked up in the store (src/sessions/agent-tokens.ts), alone,
// glued to other text, inside JSON, and in long runs; known secrets (owner token, provider
// keys) as plain text and escaped.

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDb } from "../src/store/db.ts";
import { newToken } from "../src/core/ids.ts";
import fc from "fast-check";
import { MASK, replaceTokenRuns, SecretMask } from "../src/core/secret-mask.ts";
import { agentTokenLookups } from "../src/sessions/agent-tokens.ts";

function withMask(fn: (mask: SecretMask, tokens: string[]) => void, known: string[] = []): void {
  const dir = mkdtempSync(join(tmpdir(), "oar-secret-mask-"));
  const db = openDb(join(dir, "oar.db"));
  try {
    const tokens = [newToken(), newToken()];
    const ins =
      db.prepare(`INSERT INTO sessions (id, title, provider, model, cwd, agent_token, created_at, last_activity_at)
      VALUES (?, 't', 'scripted', 'scripted-1', '/tmp', ?, 0, 0)`);
    tokens.forEach((t, i) => {
      ins.run(`ses_${i}`, t);
    });
    fn(new SecretMask({ known: () => known, ...agentTokenLookups(db) }), tokens);
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

test("agent tokens are 32 token characters", () => {
  assert.match(newToken(), /^[A-Za-z0-9_-]{32}$/);
});

test("an agent token alone, in JSON and in plain text, is masked", () => {
  withMask((mask, [a, b]) => {
    assert.equal(mask.maskText(`use ${a} now`), `use ${MASK} now`);
    assert.equal(mask.maskJson(JSON.stringify({ text: a, other: [b] })), JSON.stringify({ text: MASK, other: [MASK] }));
  });
});

test("a token glued to other token characters is found in the run, on both sides", () => {
  withMask((mask, [a, b]) => {
    assert.equal(mask.maskText(`x-${a}_tail`), `x-${MASK}_tail`);
    assert.equal(mask.maskText(`pre${a}`), `pre${MASK}`);
    assert.equal(mask.maskText(`${a}post`), `${MASK}post`);
    assert.equal(mask.maskText(`${a}${b}`), `${MASK}${MASK}`);
    assert.equal(mask.maskText(`ab${a}cd${b}ef`), `ab${MASK}cd${MASK}ef`);
  });
});

test("runs of token characters that hold no token are left as they are", () => {
  withMask((mask) => {
    const runs = [
      "a".repeat(31),
      "b".repeat(32),
      "c".repeat(40),
      "W1szMywic2VzXzAwMDAwMDAwMDAwMSJd",
      "d-e_f".repeat(30),
    ];
    for (const r of runs) assert.equal(mask.maskText(`say ${r}.`), `say ${r}.`);
    const json = JSON.stringify({
      sessions: [{ id: "ses_000000000001", cwd: "/tmp/x" }],
      nextCursor: "W1sxNzMzMDU5MjAwMDAwLCJzZXNfMDAwMDAwMDk5OTk5Il0",
    });
    assert.equal(mask.maskJson(json), json);
  });
});

test("in a run longer than 256 characters only its two ends are looked at", () => {
  withMask((mask, [a, b]) => {
    const mid = "m".repeat(300);
    assert.equal(mask.maskText(`${a}${mid}${b}`), `${MASK}${mid}${MASK}`);
    // A token in the middle of such a run is data, not looked up.
    const inside = `${"x".repeat(200)}${a}${"y".repeat(200)}`;
    assert.equal(mask.maskText(inside), inside);
  });
});

test("known secrets are masked as they are and JSON-escaped", () => {
  const secret = 'sk-"quoted"\\key';
  withMask(
    (mask) => {
      assert.equal(mask.maskText(`key ${secret} end`), `key ${MASK} end`);
      assert.equal(mask.maskJson(JSON.stringify({ k: secret })), JSON.stringify({ k: MASK }));
    },
    [secret],
  );
});

test("the run scanner finds exactly what /[A-Za-z0-9_-]{32,}/g finds, and replaces the same", () => {
  // Strings of short and long runs of token characters between other characters (JSON
  // punctuation, spaces, non-ASCII), at every offset.
  const piece = fc.oneof(
    fc.stringMatching(/^[A-Za-z0-9_-]{0,40}$/),
    fc.stringMatching(/^[A-Za-z0-9_-]{28,70}$/),
    fc.constantFrom('"', ":", ",", " ", "/", "{", "}", "é", "\n", "=", "."),
  );
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 30 }), (parts) => {
      const text = parts.join("");
      const seen: string[] = [];
      const expected = text.replace(/[A-Za-z0-9_-]{32,}/g, (r) => {
        seen.push(r);
        return r.length % 2 ? "<odd>" : r;
      });
      const got: string[] = [];
      const actual = replaceTokenRuns(text, (r) => {
        got.push(r);
        return r.length % 2 ? "<odd>" : r;
      });
      assert.deepEqual(got, seen);
      assert.equal(actual, expected);
    }),
    { numRuns: 2000 },
  );
});
