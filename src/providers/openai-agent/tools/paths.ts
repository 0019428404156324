// Every path a file tool (and run_command's working folder) takes stays inside the session's
// folder: relative paths resolve against it, and every symbolic link on the way is followed
// before the check — also one whose target does not exist yet (a write would create the file
// where the link points), so a link cannot lead outside. Tools then use the resolved path,
// which has no link left in it.

import { realpathSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { resolveLinks, TooManyLinks } from "../../../core/paths.ts";

export class ToolRefused extends Error {}

/** The absolute path `p` leads to inside `cwd`, links resolved; throws ToolRefused when it
 * leads outside (naming where it leads when a link took it there). */
export function confine(cwd: string, p: unknown): string {
  if (typeof p !== "string" || p.trim() === "") throw new ToolRefused("A path is required.");
  const root = realpathSync(cwd);
  const given = isAbsolute(p) ? resolve(p) : resolve(root, p);
  let abs: string;
  try {
    abs = resolveLinks(given);
  } catch (err) {
    if (err instanceof TooManyLinks)
      throw new ToolRefused(`'${p}' goes through too many symbolic links; nothing was done.`);
    throw err;
  }
  const rel = relative(root, abs);
  if (rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
    const via =
      abs !== given && relative(root, given).split(sep)[0] !== ".." ? ` (a symbolic link leads it to ${abs})` : "";
    throw new ToolRefused(`'${p}' is outside the session's folder ${root}${via}; only files under it can be used.`);
  }
  return abs;
}

/** A path as shown to the model: relative to the session's folder. */
export function shown(cwd: string, abs: string): string {
  return relative(realpathSync(cwd), abs) || ".";
}
