// The branch the relay names itself (contract §10.1): `oar/<slug of the title>-<last 6
// characters of the session id>`. The slug keeps what git and a shell take without quoting.

const SLUG_MAX = 40;

export function slugOf(title: string): string {
  const flat = title
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "") // accents off: "Café" → "cafe"
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  if (!flat) return "session";
  if (flat.length <= SLUG_MAX) return flat;
  // Cut at a word's end when one is near, so the name does not end mid-word.
  const cut = flat.slice(0, SLUG_MAX);
  const dash = cut.lastIndexOf("-");
  return (dash >= SLUG_MAX / 2 ? cut.slice(0, dash) : cut).replace(/-+$/, "");
}

export function relayBranchName(title: string, sessionId: string): string {
  return `oar/${slugOf(title)}-${sessionId.slice(-6)}`;
}

/** A folder name for a branch: `oar/fix-login-ab12cd` → `oar-fix-login-ab12cd`. */
export function folderNameOf(branch: string): string {
  return (
    branch
      .replace(/[^A-Za-z0-9._-]+/g, "-")
      .replace(/^[.-]+/, "")
      .slice(0, 100) || "worktree"
  );
}
