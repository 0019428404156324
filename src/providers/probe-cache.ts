// What the availability probes found, per provider, for this relay process (one relay per
// process). Read synchronously by the catalog (relay_info, create_session, the model check),
// written by probes.ts; nothing waits on a probe to answer.

import type { Capabilities } from "./capabilities.ts";

export interface ProbeResult {
  available: boolean;
  reason?: string;
  /** Relay model ids the agent reported at session/new; null or absent: none reported. */
  models?: string[] | null;
  checkedAt: number;
  /** What its initialize advertised (contract §10.2), when it answered. */
  capabilities?: Capabilities;
}

const results = new Map<string, ProbeResult>();

export function probeResult(id: string): ProbeResult | undefined {
  return results.get(id);
}

export function setProbeResult(id: string, r: ProbeResult): void {
  results.set(id, r);
}

/** A provider that is gone (a custom agent removed): its result must not greet a new one of that id. */
export function forgetProbe(id: string): void {
  results.delete(id);
}

/** Models seen at a real session/new (a turn's worker), so lists stay fresh between probes. */
export function noteModels(id: string, models: string[]): void {
  const r = results.get(id);
  if (models.length && r) results.set(id, { ...r, models });
  else if (models.length) results.set(id, { available: true, models, checkedAt: Date.now() });
}

export function discoveredModels(): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [id, r] of results) if (r.models?.length) out[id] = r.models;
  return out;
}
