// Where the relay keeps a repository's checkouts: `<data>/worktrees/<name>-<hash>/`, one
// folder per repository (its name for people, a hash of its path so two repositories called
// "app" never share one). Inside: the sessions' worktrees (named after their branch), the
// spare (`.spare`) and the merge queue's scratch worktree (`.merge`).
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, realpathSync } from "node:fs";
import { basename, join } from "node:path";
import { folderNameOf } from "./branch-name.ts";

export class RepoFolders {
  readonly root: string;

  constructor(dataDir: string) {
    const root = join(dataDir, "worktrees");
    mkdirSync(root, { recursive: true, mode: 0o700 });
    // Real path: git reports checkouts by their real paths, and they are compared with these.
    this.root = realpathSync(root);
  }

  of(repo: string): string {
    const hash = createHash("sha256").update(repo).digest("hex").slice(0, 8);
    const name =
      basename(repo)
        .replace(/[^A-Za-z0-9._-]+/g, "-")
        .replace(/^[.-]+/, "")
        .slice(0, 40) || "repo";
    return join(this.root, `${name}-${hash}`);
  }

  /** A folder for a new worktree on `branch` that nothing occupies yet. */
  freshFor(repo: string, branch: string): string {
    const dir = this.of(repo);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const name = folderNameOf(branch);
    for (let n = 1; ; n++) {
      const path = join(dir, n === 1 ? name : `${name}-${n}`);
      if (!existsSync(path)) return path;
    }
  }

  spare(repo: string): string {
    return join(this.of(repo), ".spare");
  }

  scratch(repo: string): string {
    return join(this.of(repo), ".merge");
  }
}
