import { RelayError } from "../core/errors.ts";
import { permissionOptions, type CardRow, type CardStatus, type PermissionChoice } from "./card-store.ts";

// Which of a CLI's permission options an answer picks (contract §9.2). The relay itself
// never picks an "always" option: in agent mode it takes an allow-once option, and without
// one it asks the owner; the owner's "allow" takes allow-once too, and "deny" the reject-once
// option (or, without one, refuses the request as cancelled: no "always" either way).

export interface Choice {
  status: Exclude<CardStatus, "pending" | "expired">;
  /** The option given back to the CLI; absent: the request is answered "cancelled". */
  optionId?: string;
}

export const allowOnce = (options: readonly PermissionChoice[]) => options.find((o) => o.kind === "allow_once");
export const rejectOnce = (options: readonly PermissionChoice[]) => options.find((o) => o.kind === "reject_once");

export function choosePermission(card: CardRow, decision: "allow" | "deny" | { optionId: string }): Choice {
  const options = permissionOptions(card) ?? [];
  if (typeof decision === "object") {
    const picked = options.find((o) => o.id === decision.optionId);
    if (!picked) {
      throw new RelayError(
        "REMOTE_RELAY_INVALID_INPUT",
        `Card ${card.id} has no option '${String(decision.optionId).slice(0, 80)}'. Options: ${options.map((o) => `${o.id} (${o.name})`).join(", ")}. Nothing was decided.`,
      );
    }
    return { status: picked.kind.startsWith("allow") ? "allowed" : "denied", optionId: picked.id };
  }
  if (decision === "deny") {
    const r = rejectOnce(options);
    return { status: "denied", ...(r ? { optionId: r.id } : {}) };
  }
  const a = allowOnce(options);
  if (!a) {
    throw new RelayError(
      "REMOTE_RELAY_INVALID_INPUT",
      `Card ${card.id} offers no allow-once option, and the relay does not pick an "always" option for you: answer with optionId (${options.map((o) => `${o.id} (${o.name})`).join(", ")}). Nothing was decided.`,
    );
  }
  return { status: "allowed", optionId: a.id };
}
