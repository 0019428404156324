// Reading git's machine output (-z: paths as they are, NUL-separated, never quoted).

export type FileStatus = "added" | "modified" | "deleted" | "renamed" | "copied" | "typechange" | "conflicted";

export interface FileChange {
  path: string;
  status: FileStatus;
  added: number;
  removed: number;
  /** The old path of a rename or copy. */
  from?: string;
  /** Binary: git counts no lines (added and removed read 0). */
  binary?: boolean;
}

const STATUS: Record<string, FileStatus> = {
  A: "added",
  M: "modified",
  D: "deleted",
  R: "renamed",
  C: "copied",
  T: "typechange",
  U: "conflicted",
};

/** `git diff -z --raw --numstat`: the raw entries (status, paths) come first, then the
 * numstat ones (line counts) in the same order. */
export function parseRawNumstat(out: string): FileChange[] {
  const t = out.split("\0");
  const files: FileChange[] = [];
  const counts: { added: number; removed: number; binary: boolean }[] = [];
  for (let i = 0; i < t.length; i++) {
    const tok = t[i];
    if (tok === "") continue;
    if (tok.startsWith(":")) {
      const letter = tok.split(" ").pop()!.charAt(0);
      const status = STATUS[letter] ?? "modified";
      if (letter === "R" || letter === "C") {
        files.push({ path: t[i + 2], from: t[i + 1], status, added: 0, removed: 0 });
        i += 2;
      } else {
        files.push({ path: t[i + 1], status, added: 0, removed: 0 });
        i += 1;
      }
      continue;
    }
    const [a, r, path] = tok.split("\t");
    const binary = a === "-";
    counts.push({ added: binary ? 0 : Number(a), removed: binary ? 0 : Number(r), binary });
    if (path === "") i += 2; // a rename: old and new path follow
  }
  files.forEach((f, k) => {
    const c = counts[k];
    if (!c) return;
    f.added = c.added;
    f.removed = c.removed;
    if (c.binary) f.binary = true;
  });
  return files;
}
