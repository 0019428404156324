import { z } from "zod";
import { defineAction } from "./define.ts";
import { CLAIMS_THIS_RELAY_ONLY } from "./claim-repo.ts";

// release (contract §10.1): ends one of this conversation's claims, or all of them.
export const release = defineAction({
  name: "release",
  since: "0.9.19",
  write: false,
  level: "full",
  relayOptional: true,
  thisRelayOnly: CLAIMS_THIS_RELAY_ONLY,
  nothing: "Nothing was released.",
  args: {
    claim_id: z
      .string()
      .min(1)
      .describe(
        'The claim to end (claim_id from claim, or list_claims), or "all" for every claim of this conversation.',
      ),
  },
  required: { claim_id: 'a claim of this conversation, or "all"' },
  handler({ caller, identity, worktrees }, { claim_id }) {
    const { released } = worktrees.claims.release(caller.id, claim_id.trim());
    const what = released.length ? released.map((c) => c.id).join(", ") : "no live claim";
    return { summary: `release → ${identity.name}: ${what} released`, released };
  },
});
