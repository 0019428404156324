// Walking the session's folder for list_files and search_files, without ripgrep (not installed
// everywhere): a glob becomes a regular expression over paths relative to the folder.

import { type Dirent, readdirSync } from "node:fs";
import { join, relative } from "node:path";

/** Folders no one means when searching a project. */
const SKIPPED = new Set([".git", "node_modules", ".hg", ".svn", "dist", ".next", "__pycache__", ".venv"]);

export function globToRegExp(glob: string): RegExp {
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === "*") {
      if (glob[i + 1] === "*") {
        // "**/" matches zero or more folders; a trailing "**" matches everything below.
        const slash = glob[i + 2] === "/";
        re += slash ? "(?:.*/)?" : ".*";
        i += slash ? 2 : 1;
      } else re += "[^/]*";
    } else if (c === "?") re += "[^/]";
    else if (c === "{") {
      const end = glob.indexOf("}", i);
      if (end < 0) re += "\\{";
      else {
        re += `(?:${glob
          .slice(i + 1, end)
          .split(",")
          .map(escapeRegExp)
          .join("|")})`;
        i = end;
      }
    } else re += escapeRegExp(c);
  }
  return new RegExp(`^${re}$`);
}

const escapeRegExp = (s: string) => s.replace(/[.+^${}()|[\]\\*?]/g, "\\$&");

/** Files under `dir` (relative to `root`, with "/"), skipping bulky folders, at most `limit`. */
export function walkFiles(
  root: string,
  dir: string,
  limit: number,
  signal?: AbortSignal,
): { files: string[]; truncated: boolean } {
  const files: string[] = [];
  const stack = [dir];
  while (stack.length) {
    if (signal?.aborted) break;
    const here = stack.pop()!;
    let entries: Dirent[];
    try {
      entries = readdirSync(here, { withFileTypes: true });
    } catch {
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? 1 : -1));
    for (const e of entries) {
      const full = join(here, e.name);
      if (e.isDirectory()) {
        if (!SKIPPED.has(e.name)) stack.push(full);
      } else if (e.isFile()) {
        files.push(relative(root, full).split("\\").join("/"));
        if (files.length >= limit) return { files: files.sort(), truncated: true };
      }
    }
  }
  return { files: files.sort(), truncated: false };
}
