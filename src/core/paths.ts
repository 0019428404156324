import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync, readlinkSync } from "node:fs";
import { dirname, isAbsolute, join, relative, sep } from "node:path";

/** Whether `file` lies inside `folder` (give both as real paths: symbolic links resolved). */
export function isInside(folder: string, file: string): boolean {
  const rel = relative(folder, file);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
}

/** Links followed in one path at most (Linux's own limit is 40). */
const MAX_LINKS = 40;

export class TooManyLinks extends Error {}

/** `p` (absolute) with every symbolic link on it resolved component by component — dangling
 * ones too, where a write would create the file — and components that do not exist kept as
 * they are. The answer has no link left in it (as of now). */
export function resolveLinks(p: string): string {
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
    if (++links > MAX_LINKS) throw new TooManyLinks(`${p} goes through more than ${MAX_LINKS} symbolic links`);
    rest.unshift(...link.split(sep).filter(Boolean));
    if (isAbsolute(link)) done = sep;
  }
  return done;
}

/** Where `p` (absolute) leads when that is inside `folder` (a real path), links resolved; else null. */
export function leadsInside(folder: string, p: string): string | null {
  try {
    const real = resolveLinks(p);
    return isInside(folder, real) ? real : null;
  } catch (err) {
    if (err instanceof TooManyLinks) return null;
    throw err;
  }
}

/** A regular file's bytes when `p` leads inside `folder` (a real path), with where it leads;
 * else why not. The resolved path is opened with O_NOFOLLOW: a link put in its place
 * meanwhile is not followed. */
export function readInside(
  folder: string,
  p: string,
): { bytes: Buffer; path: string } | { refused: "outside" | "missing" } {
  const real = leadsInside(folder, p);
  if (!real) return { refused: "outside" };
  let fd: number;
  try {
    fd = openSync(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    return { refused: (err as NodeJS.ErrnoException).code === "ELOOP" ? "outside" : "missing" };
  }
  try {
    return fstatSync(fd).isFile() ? { bytes: readFileSync(fd), path: real } : { refused: "missing" };
  } finally {
    closeSync(fd);
  }
}
