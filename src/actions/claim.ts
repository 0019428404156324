import { z } from "zod";
import { defineAction } from "./define.ts";
import { CLAIM_MINUTES } from "../worktrees/claims.ts";
import { CLAIMS_THIS_RELAY_ONLY, repoOfFolder } from "./claim-repo.ts";

// claim (contract §10.1): this conversation says which paths of its repository it works on;
// another session's write there through the relay is refused while the claim lives.
const NOTHING = "Nothing was claimed.";

export const claim = defineAction({
  name: "claim",
  since: "0.9.19",
  write: true,
  level: "full",
  relayOptional: true,
  thisRelayOnly: CLAIMS_THIS_RELAY_ONLY,
  nothing: NOTHING,
  args: {
    paths: z
      .union([z.array(z.string()), z.string()])
      .describe(
        'Globs relative to the repository root of your folder, e.g. ["src/api/**", "README.md"] (1–50; a folder claims everything under it).',
      ),
    minutes: z
      .number()
      .int()
      .describe(
        `How long the claim lives (${CLAIM_MINUTES.min}–${CLAIM_MINUTES.max}, default ${CLAIM_MINUTES.default}).`,
      ),
    note: z
      .string()
      .describe("What you are doing there, shown to whoever runs into the claim (at most 500 characters)."),
  },
  required: { paths: 'globs relative to the repository root, such as ["src/api/**"]' },
  async handler({ caller, identity, worktrees, approve }, { paths, minutes, note }) {
    const repo = await repoOfFolder(caller.cwd, NOTHING);
    // Checked before the card: a claim that would be refused asks nobody.
    worktrees.claims.precheck({ session: caller.id, repo, paths, minutes, note }, NOTHING);
    await approve({
      details: [
        `Repository: ${repo}`,
        `Paths: ${[paths].flat().join(", ")}`,
        `For: ${minutes ?? CLAIM_MINUTES.default} minutes`,
      ],
    });
    const made = worktrees.claims.claim({ session: caller.id, repo, paths, minutes, note }, NOTHING);
    return {
      summary: `claim → ${identity.name}: ${made.claim.paths.join(", ")} in ${repo} until ${made.claim.endsAt}`,
      ...made,
    };
  },
});
