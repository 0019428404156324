import { z } from "zod";
import { defineAction } from "./define.ts";
import { targetSession } from "./target.ts";
import { CLAIMS_THIS_RELAY_ONLY, repoOfFolder } from "./claim-repo.ts";

// list_claims (contract §10.1): the claims of one repository — your folder's, or `session`'s —
// live ones and those that ended in the last hour.
export const listClaims = defineAction({
  name: "list_claims",
  since: "0.9.19",
  write: false,
  level: "read",
  relayOptional: true,
  thisRelayOnly: CLAIMS_THIS_RELAY_ONLY,
  nothing: "Nothing was listed.",
  args: {
    session: z
      .string()
      .min(1)
      .describe("A session whose repository's claims to list. Left out: your own folder's repository."),
  },
  async handler(ctx, { session }) {
    const folder = session ? targetSession(ctx, "list_claims", session).cwd : ctx.caller.cwd;
    const repo = await repoOfFolder(folder, "Nothing was listed.");
    const claims = ctx.worktrees.claims.list(repo);
    const live = claims.filter((c) => c.active).length;
    return {
      summary: `list_claims → ${ctx.identity.name}: ${live} live ${live === 1 ? "claim" : "claims"} in ${repo}`,
      repo,
      claims,
    };
  },
});
