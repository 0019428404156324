// Every path a tool touches stays inside the session's folder: relative paths resolve against it,
// and symlinks are followed before the check so a link cannot lead outside.

import { existsSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";

export class ToolRefused extends Error {}

/** The nearest existing ancestor's real path, with the missing tail appended. */
function realish(p: string): string {
  let dir = p;
  const tail: string[] = [];
  while (!existsSync(dir)) {
    const up = dirname(dir);
    if (up === dir) break;
    tail.unshift(dir.slice(up.length + (up.endsWith(sep) ? 0 : 1)));
    dir = up;
  }
  return resolve(realpathSync(dir), ...tail);
}

/** The absolute path of `p` inside `cwd`; throws ToolRefused when it points outside. */
export function confine(cwd: string, p: unknown): string {
  if (typeof p !== "string" || p.trim() === "") throw new ToolRefused("A path is required.");
  const root = realpathSync(cwd);
  const abs = realish(isAbsolute(p) ? resolve(p) : resolve(root, p));
  const rel = relative(root, abs);
  if (rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
    throw new ToolRefused(`'${p}' is outside the session's folder ${root}; only files under it can be used.`);
  }
  return abs;
}

/** A path as shown to the model: relative to the session's folder. */
export function shown(cwd: string, abs: string): string {
  return relative(realpathSync(cwd), abs) || ".";
}
