// Every path a file tool (and run_command's working folder) takes stays inside the session's
// folder: relative paths resolve against it, and every symbolic link on the way is followed
// before the check — also one whose target does not exist yet (a write would create the file
// where the link points), so a link cannot lead outside. Tools then use the resolved path,
// which has no link left in it.
import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

export class ToolRefused extends Error {}

/** Links followed in one path at most (Linux's own limit is 40). */
const MAX_LINKS = 40;

/** `p` (absolute) with every symbolic link resolved component by component, dangling ones
 * included; components that do not exist are kept as they are. */
export function resolveLinks(p: string, shownAs: string): string {
  let done: string = sep;
  const rest = p.split(sep).filter(Boolean);
  let links = 0;
  while (rest.length) {
    const name = rest.shift()!;
    if (name === ".") continue;
    if (name === "..") {
      done = dirname(done);
      continue;
    }
    const next = join(done, name);
    let link: string | null = null;
    try {
      if (lstatSync(next).isSymbolicLink()) link = readlinkSync(next);
    } catch {
      // Missing (or unreadable): nothing there to follow.
    }
    if (link === null) {
      done = next;
      continue;
    }
    if (++links > MAX_LINKS) throw new ToolRefused(`'${shownAs}' goes through more than ${MAX_LINKS} symbolic links; nothing was done.`);
    rest.unshift(...link.split(sep).filter(Boolean));
    if (isAbsolute(link)) done = sep;
  }
  return done;
}

/** The absolute path `p` leads to inside `cwd`, links resolved; throws ToolRefused when it
 * leads outside (naming where it leads when a link took it there). */
export function confine(cwd: string, p: unknown): string {
  if (typeof p !== "string" || p.trim() === "") throw new ToolRefused("A path is required.");
  const root = realpathSync(cwd);
  const given = isAbsolute(p) ? resolve(p) : resolve(root, p);
  const abs = resolveLinks(given, p);
  const rel = relative(root, abs);
  if (rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
    const via = abs !== given && relative(root, given).split(sep)[0] !== ".." ? ` (a symbolic link leads it to ${abs})` : "";
    throw new ToolRefused(`'${p}' is outside the session's folder ${root}${via}; only files under it can be used.`);
  }
  return abs;
}

/** A path as shown to the model: relative to the session's folder. */
export function shown(cwd: string, abs: string): string {
  return relative(realpathSync(cwd), abs) || ".";
}
