import { isAbsolute, relative } from "node:path";

/** Whether `file` lies inside `folder` (give both as real paths: symbolic links resolved). */
export function isInside(folder: string, file: string): boolean {
  const rel = relative(folder, file);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
}
