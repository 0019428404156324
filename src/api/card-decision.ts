import { z } from "zod";
import { RelayError } from "../core/errors.ts";

/** How the owner decides a card: `{ decision: "allow" | "deny" }`, or for a permission card
 * `{ optionId }` (one of the CLI's options). Used by POST /api/cards/:id and /act. */
export type CardDecision = "allow" | "deny" | { optionId: string };

export function cardDecision(body: Record<string, unknown>): CardDecision {
  if ("decision" in body && "optionId" in body)
    throw new RelayError(
      "REMOTE_RELAY_INVALID_INPUT",
      "Answer with decision or with optionId, not both: they may say different things. Nothing was decided.",
    );
  const b = z
    .union([z.object({ decision: z.enum(["allow", "deny"]) }), z.object({ optionId: z.string().min(1).max(200) })])
    .safeParse(body);
  if (!b.success)
    throw new RelayError(
      "REMOTE_RELAY_INVALID_INPUT",
      'decision must be "allow" or "deny" (or, for a permission card, optionId one of its options). Nothing was decided.',
    );
  return "optionId" in b.data ? { optionId: b.data.optionId } : b.data.decision;
}
