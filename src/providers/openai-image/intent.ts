// Generate or edit: a prompt edits an earlier image when it names an image file of the
// session's folder, or refers to the conversation's last image ("make it blue", "edit the
// last image"); otherwise — and always when it asks for a new or another image — it
// generates. Only files inside the session's folder can be edited: a prompt (possibly from
// another agent) cannot make this agent upload an arbitrary file of the machine to OpenAI.
import { existsSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { isInside } from "../../core/paths.ts";

export type Intent = { kind: "generate" } | { kind: "edit"; image: string; named: boolean };

const FILE = /(?:^|[\s"'`(])((?:~?[\w.@/-]*\/)?[\w.@-]+\.(?:png|jpe?g|webp))(?=$|[\s"'`),.;:!?])/gi;
const NEW = /\b(?:new|another|fresh|different|separate)\s+(?:image|picture|photo|drawing|one)s?\b|\bfrom scratch\b/i;
const EDIT = new RegExp(
  [
    String.raw`\b(?:edit|modify|retouch|tweak|recolou?r|crop|extend|rework)\b`,
    String.raw`\b(?:the|this|that)\s+(?:last|previous|latest|same|first|second|third)?\s*(?:image|picture|photo|one|drawing)\b`,
    String.raw`\b(?:make|turn|change|render|keep|put|give)\s+(?:it|them|this|that)\b`,
    String.raw`\b(?:add|remove|replace|put|place|erase|delete)\b.*\b(?:to|from|in|on|into|onto)\s+(?:it|them|the\s+(?:image|picture|photo|background|scene))\b`,
    String.raw`\bits\s+(?:background|colou?rs?|style|lighting|sky|face|text)\b`,
  ].join("|"),
  "i",
);

/** An image file the prompt names, found in the folder or its images/ folder. */
export function namedImage(prompt: string, cwd: string): string | null {
  const root = realpathSync(cwd);
  for (const m of prompt.matchAll(FILE)) {
    const name = m[1];
    const candidates = isAbsolute(name) ? [name] : [resolve(cwd, name), join(cwd, "images", name)];
    for (const c of candidates) {
      if (!existsSync(c) || !statSync(c).isFile()) continue;
      const real = realpathSync(c);
      if (isInside(root, real)) return real;
    }
  }
  return null;
}

export function decide(prompt: string, cwd: string, lastImage: string | null, attached: string | null = null): Intent {
  if (attached) return { kind: "edit", image: attached, named: true };
  const named = namedImage(prompt, cwd);
  if (named) return { kind: "edit", image: named, named: true };
  if (!lastImage || !existsSync(lastImage) || NEW.test(prompt)) return { kind: "generate" };
  return EDIT.test(prompt) ? { kind: "edit", image: lastImage, named: false } : { kind: "generate" };
}
