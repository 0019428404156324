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

/** Whether `name` is a name git takes for a new branch (`git check-ref-format --branch`,
 * without starting a git process): no component starting with `.` or ending in `.lock`, no
 * `..`, `@{`, `\`, control characters, space or any of `~^:?*[`, no empty component, not
 * ending in `.`, not `HEAD`, not starting with `-`. `@` (git's word for HEAD) is refused too. */
export function isBranchName(name: string): boolean {
  if (!name || name === "HEAD" || name === "@" || name.startsWith("-") || name.endsWith(".")) return false;
  if (/[\x00-\x20\x7f~^:?*[\\]|\.\.|@\{/.test(name)) return false;
  return name.split("/").every((c) => c !== "" && !c.startsWith(".") && !c.endsWith(".lock"));
}
