import { adapterFor, allAdapters, type LaunchSpec } from "./adapters/index.ts";
import { workerEnv } from "./adapters/env.ts";
import { scripted } from "./adapters/scripted.ts";
import { fakeProviders, which } from "./catalog.ts";

// How a provider's agent process is started: its adapter's launch, in an environment that
// holds the relay's variables minus every other provider's secrets (contract §9.2).

export interface FullLaunch extends LaunchSpec {
  /** The whole environment the worker gets (not merged with the relay's again). */
  env: Record<string, string>;
}

export function launchSpec(provider: string, settings: Record<string, unknown> = {}): FullLaunch | null {
  const adapter = adapterFor(provider);
  // OAR_FAKE_PROVIDERS (test only, see catalog.ts) runs the listed providers on the scripted agent.
  const runAs = fakeProviders().ids.has(provider) ? scripted : adapter;
  if (!runAs) return null;
  const command = adapter?.binary;
  const env = workerEnv(adapter, allAdapters(), settings);
  const spec = runAs.launch({ settings, binary: command && which(command) ? command : null, env });
  if (!spec) return null;
  return { ...spec, env: { ...env, ...(spec.env ?? {}) } };
}

/** How to sign `provider` in, as the owner reads it in a reason: the adapter's words, and what
 * of the relay's environment its worker is not given. */
export function signInFor(provider: string, settings: Record<string, unknown> = {}): string {
  const adapter = adapterFor(provider);
  if (!adapter) return "";
  const note = adapter.withheld?.(process.env, workerEnv(adapter, allAdapters(), settings));
  return note ? `${adapter.signIn}; ${note}` : adapter.signIn;
}
