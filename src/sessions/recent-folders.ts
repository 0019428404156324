const KEPT = 10;

/** Folders sessions were started in lately (relay_info's recentCwds), newest first. Kept in
 * memory: a restart starts the list anew. */
export class RecentFolders {
  private list: string[] = [];

  recent(): readonly string[] {
    return this.list;
  }

  note(cwd: string): void {
    this.list = [cwd, ...this.list.filter((c) => c !== cwd)].slice(0, KEPT);
  }
}
