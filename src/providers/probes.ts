import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AcpWorker } from "./acp-worker.ts";
import { adapterFor } from "./adapters/index.ts";
import { CATALOG, fakeProviders, getProvider, providerAvailability } from "./catalog.ts";
import { launchSpec } from "./launch.ts";
import { probeResult, setProbeResult, type ProbeResult } from "./probe-cache.ts";
import { advertisedModels } from "./session-config.ts";
import { isOpenAiAgent, refreshOpenAiAgents } from "./openai-agent/provider.ts";
import { describeFailure, isAuthError, signInReason } from "./turn-errors.ts";

// Availability you can trust (contract §9.2): `available` means installed AND signed in.
// A probe starts the provider's agent the way a session would (its own secrets only), asks
// `initialize` and a trial `session/new` in an empty temp folder, listens for its sign-in
// status, then ends it. Results are cached per provider with `checkedAt`; the relay probes in
// the background at start, when a provider's settings change, when a turn fails on sign-in,
// and when the owner asks (POST /api/providers/:id/check). Nobody waits on a probe but that
// owner call: until a result is in, the catalog reports what it knows (installed or not).

/** Real time on purpose: a probe waits on a process, not on the relay's schedule. */
const PROBE_TIMEOUT_MS = 45_000;

export interface ProbeEnv {
  relayName: string;
  settings(): Record<string, unknown>;
  now(): number;
}

export class ProviderProbes {
  private running = new Map<string, Promise<ProbeResult | undefined>>();

  constructor(private env: ProbeEnv) {}

  /** Providers worth probing: a CLI that is installed (and set up), not faked for tests. */
  probeable(id: string): boolean {
    if (!adapterFor(id)?.binary || fakeProviders().ids.has(id)) return false;
    return launchSpec(id, this.env.settings()) !== null;
  }

  /** Probes every probeable provider in the background. */
  startAll(): void {
    for (const id of Object.keys(CATALOG)) if (this.probeable(id)) void this.check(id);
  }

  /** Runs (or joins) a probe of `id`; undefined when there is nothing to probe. */
  check(id: string): Promise<ProbeResult | undefined> {
    // DeepSeek / OpenAI-compatible run no CLI: their probe asks the endpoint's models list.
    if (isOpenAiAgent(id)) return refreshOpenAiAgents(this.env.settings(), true, PROBE_TIMEOUT_MS).then(() => probeResult(id));
    const going = this.running.get(id);
    if (going) return going;
    if (!this.probeable(id)) return Promise.resolve(undefined);
    const p = this.probe(id).then((r) => {
      setProbeResult(id, r);
      return r;
    }).finally(() => this.running.delete(id));
    this.running.set(id, p);
    return p;
  }

  /** A turn failed on sign-in: probe again, and if the probe still finds it signed in (a key
   * that is set but refused), it stays unavailable until its settings change or the owner checks. */
  async authFailed(id: string): Promise<void> {
    const r = await this.check(id);
    if (!r?.available) return;
    const adapter = adapterFor(id)!;
    const ctx = { providerName: getProvider(id)?.name ?? id, relayName: this.env.relayName, signIn: adapter.signIn };
    setProbeResult(id, { ...r, available: false, reason: `${signInReason(ctx)} (its credentials were refused at the last turn)` });
  }

  checking(id: string): boolean {
    return this.running.has(id);
  }

  private async probe(id: string): Promise<ProbeResult> {
    const adapter = adapterFor(id)!;
    const name = getProvider(id)?.name ?? id;
    const spec = launchSpec(id, this.env.settings())!;
    const dir = mkdtempSync(join(tmpdir(), "oar-probe-"));
    const worker = new AcpWorker(spec, dir, { onChunk() {}, onTask() {}, onTaskOutput() {}, askUser: async () => ({}), onExit() {} }, adapter);
    const ctx = { providerName: name, relayName: this.env.relayName, signIn: adapter.signIn };
    const checkedAt = this.env.now();
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`it did not answer within ${PROBE_TIMEOUT_MS / 1000} s`)), PROBE_TIMEOUT_MS);
      });
      const exited = worker.exited.then(() => {
        throw new Error(`it exited at start${worker.stderr ? ` (${worker.stderr.trim().slice(-300)})` : ""}`);
      });
      await Promise.race([worker.start(null, { probe: true }), timeout, exited]);
      // A sign-in notification may trail session/new by a moment (Claude sends it meanwhile).
      if (adapter.signedOut && worker.signedOut === undefined) await worker.waitForNotice("_auth/status_update", 2000);
      const models = advertisedModels(worker.advertised, adapter);
      if (worker.signedOut) return { available: false, reason: signInReason(ctx), models: models.length ? models : null, checkedAt };
      return { available: true, models: models.length ? models : null, checkedAt };
    } catch (err) {
      if (isAuthError(err)) return { available: false, reason: signInReason(ctx), checkedAt };
      const why = describeFailure(err, { ...ctx, stderr: worker.stderr }).message;
      return { available: false, reason: `${name} did not start on relay "${this.env.relayName}": ${why.replace(/ Send the message again.*$/, "")}`, checkedAt };
    } finally {
      clearTimeout(timer);
      worker.kill();
      rmSync(dir, { recursive: true, force: true });
    }
  }

  /** A provider as GET /api/providers shows it: relay_info's entry plus when it was checked. */
  entry(id: string): { available: boolean; reason?: string; checkedAt: string | null; checking: boolean } {
    const a = providerAvailability(id, { settings: this.env.settings() });
    const r = probeResult(id);
    return { available: a.available, ...(a.reason ? { reason: a.reason } : {}), checkedAt: r ? new Date(r.checkedAt).toISOString() : null, checking: this.checking(id) };
  }
}
