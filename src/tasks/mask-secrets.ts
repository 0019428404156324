// Masks credentials in text an agent or the owner will read (task output, results,
// logs). A secret that reaches an agent's context is as good as leaked, so this errs
// towards masking anything shaped like a credential, while leaving ordinary output
// (test names, paths, counts, git SHAs) alone: a masked `max_tokens=4096` would cost
// the reader information and buy no safety.
//
// Apply it to whole text, not line by line, when the text may hold a PEM block: the
// block spans lines and only the whole text shows where it ends. Colour codes are
// removed from text that has them (see maskSecrets); carriage returns stay.

import { MASK } from "../core/secret-mask.ts";
import { stripAnsi } from "./plain-text.ts";

// Shorter "known" strings would mask ordinary words and digits all over the output.
const MIN_KNOWN_LENGTH = 4;

// Words that make a name a credential's name. The word must END the name, so that
// `GITHUB_TOKEN`, `accessToken`, `x-api-key` match and `max_tokens`, `TOKEN_LIMIT`,
// `password_file` do not. `secret_key_base` style suffixes are allowed explicitly.
const SECRET_WORD = `(?:token|password|passwd|passphrase|secret|api[_-]?key|apikey|access[_-]?key|private[_-]?key|secret[_-]?key|(?:signing|encryption|master|auth)[_-]?key|client[_-]?secret|credentials?)(?:[_-]?(?:base|value|b64|base64))?`;
const NAME = String.raw`[A-Za-z0-9_.\-]*?${SECRET_WORD}`;
// The name starts where a name could start: not in the middle of another word.
const NAME_START = String.raw`(?<![A-Za-z0-9_.\-])`;

// Values that are references or placeholders, not secrets: masking them hides the
// fact that, say, a variable was empty, which is what the reader needs to see.
const PLACEHOLDER =
  /^(?:\$\{?[A-Za-z_]\w*\}?|\$\(.*\)|<[^>]*>|\*+|x{3,}|\.{3}|…|null|undefined|none|nil|true|false|\[?redacted\]?|\[?hidden\]?|\[?masked\]?)$/i;

// Source code shows up in test failures (code frames, stack traces): `const token =
// createToken(user)` names a function, not a secret.
const CODE_VALUE =
  /^(?:await|new|this|typeof|function|async|return|os\.environ.*|process\.env.*|[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+|[^()]*\(.*|.*[{[].*)$/;

// A quoted value is a literal, so only placeholders keep it; a bare one may be code.
function keepsQuoted(value: string): boolean {
  return value === "" || PLACEHOLDER.test(value) || value.includes(MASK);
}

function keepsValue(value: string): boolean {
  return keepsQuoted(value) || CODE_VALUE.test(value);
}

// Unquoted `name: value` is also how prose and test titles read ("token: refreshes
// when expired"), so there the value must look generated: contain a digit, or be long.
function looksGenerated(value: string): boolean {
  return /\d/.test(value) || value.length >= 20;
}

type Rule = [RegExp, (match: string, ...groups: string[]) => string];

// Whole-match masks: credentials whose shape alone says what they are.
const KEY_SHAPES: RegExp[] = [
  // OpenAI / Anthropic (sk-…, sk-ant-api03-…, sk-proj-…); a digit rules out prose like
  // "sk-learn-style-reproducible-pipelines".
  /\bsk-(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{20,}/g,
  // Stripe secret and restricted keys.
  /\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}/g,
  // GitHub personal, OAuth, user-to-server, server-to-server, refresh tokens.
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bglpat-[A-Za-z0-9_-]{20,}/g,
  /\bnpm_[A-Za-z0-9]{36}\b/g,
  // Slack bot, user, app-level tokens.
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g,
  // AWS access key ids.
  /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g,
  // Google API keys.
  /\bAIza[0-9A-Za-z_-]{35}/g,
  // JWTs: base64url header (always `{"` → eyJ), payload, signature (empty if unsigned).
  /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g,
];

const RULES: Rule[] = [
  // PEM private keys: keep the armour lines so the reader sees what was there. A block
  // cut off by the end of the text is masked to the end.
  [
    /(-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----)[\s\S]*?(?:(-----END [A-Z0-9 ]*PRIVATE KEY-----)|$(?![\s\S]))/g,
    (_m, begin, end) => `${begin}\n${MASK}${end ? `\n${end}` : ""}`,
  ],
  // Passwords in URLs: scheme://user:password@host. The user name stays.
  [
    /\b([a-z][a-z0-9+.-]{0,30}:\/\/)([^\s:@/?#]*):([^\s@/?#]+)@/gi,
    (_m, scheme, user, pass) => (keepsQuoted(pass) ? _m : `${scheme}${user}:${MASK}@`),
  ],
  // Authorization headers, with or without a scheme; the scheme stays visible.
  [
    /\b((?:proxy-)?authorization["']?[ \t]*[:=][ \t]*["']?)(?:(bearer|basic|token|digest|negotiate|ntlm|bot)[ \t]+)?([^\s"',;]+)/gi,
    (m, head, scheme, value) => {
      if (keepsQuoted(value) || (!scheme && !looksGenerated(value))) return m;
      return `${head}${scheme ? `${scheme} ` : ""}${MASK}`;
    },
  ],
  // A bearer token quoted on its own ("using Bearer abc…"). A digit tells it from prose.
  [
    /\b(Bearer[ \t]+)(?=[A-Za-z0-9._~+/-]*\d)([A-Za-z0-9._~+/-]{8,}=*)/g,
    (m, head, value) => (keepsQuoted(value) ? m : `${head}${MASK}`),
  ],
  // Credential headers as curl -v prints them ("> X-Api-Key: …"): a header is never prose.
  [
    new RegExp(String.raw`^([<>] ${NAME}:[ \t]*)(\S.*)$`, "gim"),
    (m, head, value) => (keepsQuoted(value) ? m : `${head}${MASK}`),
  ],
  // Cookie headers as curl -v and HTTP logs print them.
  [/^([ \t]*[<>]?[ \t]*(?:set-)?cookie:[ \t]*)(\S.*)$/gim, (_m, head) => `${head}${MASK}`],
  // JSON / JS object keys: "password": "…", 'apiKey': '…'.
  [
    new RegExp(String.raw`(["'])(${NAME})\1([ \t]*:[ \t]*)(["'])((?:\\.|(?!\4)[^\\\n])*)\4`, "gi"),
    (m, q, name, sep, vq, value) => (keepsQuoted(value) ? m : `${q}${name}${q}${sep}${vq}${MASK}${vq}`),
  ],
  // Command-line flags: --token xyz, --api-key "xyz". (--token=xyz is an assignment.)
  [
    new RegExp(
      String.raw`(?<![\w-])(--?[\w-]*?${SECRET_WORD})([ \t]+)(?:"([^"\n]*)"|'([^'\n]*)'|([^\s"'-][^\s"']*))`,
      "gi",
    ),
    (m, flag, space, dq, sq, bare) => {
      if (bare !== undefined) return keepsValue(bare) ? m : `${flag}${space}${MASK}`;
      const q = dq !== undefined ? '"' : "'";
      return keepsQuoted(dq ?? sq ?? "") ? m : `${flag}${space}${q}${MASK}${q}`;
    },
  ],
  // Assignments: env lines, .npmrc, query strings, config dumps. `==` and `=>` are code.
  [
    new RegExp(
      String.raw`${NAME_START}(${NAME})([ \t]*=(?![=>])[ \t]*)(?:"([^"\n]*)"|'([^'\n]*)'|([^\s"'&;,]+))`,
      "gi",
    ),
    (m, name, sep, dq, sq, bare) => {
      // An environment variable (UPPER_CASE) holds data, never code: `NPM_TOKEN=ab.cd`.
      const env = /^[A-Z0-9_]+$/.test(name);
      if (bare !== undefined ? (env ? keepsQuoted(bare) : keepsValue(bare)) : keepsQuoted(dq ?? sq ?? "")) return m;
      const q = dq !== undefined ? '"' : sq !== undefined ? "'" : "";
      return `${name}${sep}${q}${MASK}${q}`;
    },
  ],
  // Unquoted `name: value` (YAML, log fields, util.inspect's `{ password: 'x' }`): a
  // quoted value is a literal; a bare one only when it looks generated.
  [
    new RegExp(String.raw`${NAME_START}(${NAME})(:[ \t]*)(?:"([^"\n]*)"|'([^'\n]*)'|([^\s"',;]+))`, "gi"),
    (m, name, sep, dq, sq, bare) => {
      if (bare !== undefined) return keepsValue(bare) || !looksGenerated(bare) ? m : `${name}${sep}${MASK}`;
      const q = dq !== undefined ? '"' : "'";
      return keepsQuoted(dq ?? sq ?? "") ? m : `${name}${sep}${q}${MASK}${q}`;
    },
  ],
];

export function maskSecrets(text: string, known: string[] = []): string {
  // Colour codes go first: one inside a credential (`password: \x1b[32m'x'\x1b[39m` as
  // util.inspect prints it) would hide it from every pattern below.
  let out = /[\x1b\x9b\x9d]/.test(text) ? stripAnsi(text) : text;
  // The relay's own secrets first, longest first, so one that contains another is
  // masked whole rather than leaving its tail visible.
  const secrets = [...new Set(known)].filter((s) => s.length >= MIN_KNOWN_LENGTH).sort((a, b) => b.length - a.length);
  for (const secret of secrets) out = out.split(secret).join(MASK);
  for (const shape of KEY_SHAPES) out = out.replace(shape, MASK);
  for (const [pattern, replace] of RULES) out = out.replace(pattern, replace);
  return out;
}
