import { isIP } from "node:net";

// Seed §6: the owner unlocks a paired relay in a conversation by mentioning it: `@name`, or its
// name or host name as a word. A name that is an IP address or localhost counts only with `@`.

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

function needsAt(name: string): boolean {
  const n = name.replace(/^\[|\]$/g, "").toLowerCase();
  return n === "localhost" || isIP(n) !== 0;
}

/** Whether `text` mentions one of `names` (a relay's name, its own name, its host). */
export function mentions(text: string, names: string[]): boolean {
  for (const raw of names) {
    const name = raw.trim();
    if (!name) continue;
    // A word: not inside a longer name (letters, digits, dot, dash, underscore around it).
    const word = `(?<![\\w.@-])${escapeRegExp(name)}(?![\\w-]|\\.[\\w])`;
    const at = `@${escapeRegExp(name)}(?![\\w-]|\\.[\\w])`;
    const re = new RegExp(needsAt(name) ? at : `${at}|${word}`, "i");
    if (re.test(text)) return true;
  }
  return false;
}
