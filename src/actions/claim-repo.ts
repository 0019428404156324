import { RelayError } from "../core/errors.ts";
import { git } from "../cloud/git.ts";
import { findRepo } from "../worktrees/repo.ts";

/** The repository (its main folder) a session's folder lies in: claims and list_claims name
 * paths of it. A folder outside any repository is refused with the reason. */
export async function repoOfFolder(folder: string, nothing: string): Promise<string> {
  const found = await findRepo(git, folder);
  if (!found.ok)
    throw new RelayError(
      "REMOTE_RELAY_INVALID_INPUT",
      `${found.reason}; claims name paths of the git repository a session works in. ${nothing}`,
    );
  return found.repo.main;
}

export const CLAIMS_THIS_RELAY_ONLY =
  "Claims and merges are kept by the relay the repository is on: call them there (a session of that relay).";
