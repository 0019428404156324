import { RelayError } from "../core/errors.ts";
import type { SessionRow } from "../sessions/types.ts";
import { needFor, type Gate } from "../approvals/gate.ts";
import type { Grants } from "../approvals/grants.ts";
import type { RemoteContext } from "./remote-context.ts";
import type { ActionServices } from "./services.ts";

// The approval gate for a call from a conversation on a paired relay (contract §5.6): this
// relay's rules decide whether the owner must be asked (mode from the caller, grants and loop
// count of the stand-in); the card itself is the calling relay's. A call that needs one stops
// here, before anything is written, and peer/call.ts answers `approvalNeeded`; the calling
// relay shows the card and calls again with `approved`.

export interface RemoteApproveDeps {
  approvals: { grants: Grants };
  /** The grants an Allow records are written in one transaction. */
  transaction: ActionServices["transaction"];
}

/** The dispatcher's `approve` for a remote call (dispatch.ts). */
export function remoteApprove(d: RemoteApproveDeps, remote: RemoteContext, caller: SessionRow, gate: Gate): void {
  const grants = d.approvals.grants;
  const need = needFor(caller, gate, grants);
  const prompts = gate.prompts ?? 0;
  if (need.reasons.length && !remote.approved) {
    remote.approvalNeeded = {
      action: gate.action,
      target: gate.target ?? null,
      details: gate.details ?? [],
      ...(gate.detail ? { detail: gate.detail } : {}),
      ...(gate.billing ? { billing: gate.billing } : {}),
      reasons: need.reasons,
      write: gate.write,
    };
    throw new RelayError(
      "REMOTE_RELAY_PERMISSION",
      `Needs the owner's approval on the calling relay. ${gate.nothing ?? "Nothing was done."}`,
    );
  }
  d.transaction(() => {
    if (need.reasons.length) {
      if (gate.once) grants.allow(caller.id, gate.once, gate.relay);
      if (need.loop && grants.loopExceeded(caller.id, prompts)) grants.extendLoop(caller.id);
    }
    grants.countPrompts(caller.id, prompts);
  });
}
