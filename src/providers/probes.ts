import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnDirect } from "./direct-pipe.ts";
import { AcpWorker, type LaunchSpec } from "./acp-worker.ts";
import { adapterFor, type ProviderAdapter } from "./adapters/index.ts";
import { fakeProviders, getProvider, providerAvailability, providerList } from "./catalog.ts";
import { launchSpec, signInFor } from "./launch.ts";
import { probeResult, setProbeResult, type ProbeResult } from "./probe-cache.ts";
import { advertisedModels } from "./session-config.ts";
import { isAuthError, signInReason } from "./turn-errors.ts";

// Availability you can trust (contract §9.2): `available` means installed AND signed in.
// A probe starts the provider's agent the way a session would (its own secrets only), asks
// `initialize` and a trial `session/new` in an empty temp folder, listens for its sign-in
// status, then ends it. Results are cached per provider with `checkedAt`; the relay probes in
// the background at start, when a provider's settings change, when a turn fails on sign-in,
// and when the owner asks (POST /api/providers/:id/check). Nobody waits on a probe but that
// owner call: until a result is in, the catalog reports what it knows (installed or not).

/** Real time on purpose: a probe waits on a process, not on the relay's schedule. */
const PROBE_TIMEOUT_MS = 120_000;
/** Claude pushes its sign-in status after its own background check (seconds; tens on a loaded machine). */
const SIGN_IN_NOTICE_MS = 90_000;
/** How long relay_info and creating a session wait for a provider's first probe (a paired
 * relay's call gives up after 30 s). */
const FIRST_CHECK_WAIT_MS = 25_000;

class ProbeTimeout extends Error {}

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
    for (const { id } of providerList()) if (this.probeable(id)) void this.check(id);
  }

  /** Runs (or joins) a probe of `id`; undefined when there is nothing to probe. `fresh`: a
   * probe already running started before what changed (a setting), so another runs after it. */
  check(id: string, fresh = false): Promise<ProbeResult | undefined> {
    const going = this.running.get(id);
    if (going && !fresh) return going;
    const start = () => (this.probeable(id) ? this.probe(id) : Promise.resolve(undefined));
    const p: Promise<ProbeResult | undefined> = (going ? going.catch(() => undefined).then(start) : start())
      .then((r) => {
        if (r) setProbeResult(id, r);
        return r;
      })
      .finally(() => {
        if (this.running.get(id) === p) this.running.delete(id);
      });
    this.running.set(id, p);
    return p;
  }

  /** A turn failed on sign-in: probe again, and if the probe still finds it signed in (a key
   * that is set but refused), it stays unavailable until its settings change or the owner checks. */
  async authFailed(id: string): Promise<void> {
    if (!this.probeable(id)) return;
    const ctx = {
      providerName: getProvider(id)?.name ?? id,
      relayName: this.env.relayName,
      signIn: signInFor(id, this.env.settings()),
    };
    const refused = {
      available: false,
      reason: `${signInReason(ctx)} (its credentials were refused at the last turn)`,
    };
    // Unavailable from the refusal on, not only once the probe below ends: until then the
    // last probe's "available" is stale (relay_info read it while the turn had just failed).
    const last = probeResult(id);
    setProbeResult(id, { ...last, checkedAt: last?.checkedAt ?? this.env.now(), ...refused });
    const r = await this.check(id, true);
    if (r?.available) setProbeResult(id, { ...r, ...refused });
  }

  checking(id: string): boolean {
    return this.running.has(id);
  }

  /** Waits (at most `ms`) for the first probes of `ids` still running. Until one answers,
   * whether an installed CLI is signed in is not known, and reading it as available said
   * more than the relay knew: a signed-out Copilot was offered for its first ~10 s, and its
   * session's first prompt failed. Past the bound, installed counts as available again. */
  async firstChecks(ids: readonly string[], ms = FIRST_CHECK_WAIT_MS): Promise<void> {
    const pending = ids.flatMap((id) => (this.running.has(id) && !probeResult(id) ? [this.running.get(id)!] : []));
    if (!pending.length) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled(pending), new Promise((r) => (timer = setTimeout(r, ms)))]);
    clearTimeout(timer);
  }

  private async probe(id: string): Promise<ProbeResult> {
    // Started at relay start: it shows as checking at once, but its process (and the ACP
    // SDK) start after the relay has begun serving, not before (issue 14).
    await new Promise((r) => setImmediate(r));
    const adapter = adapterFor(id)!;
    const name = getProvider(id)?.name ?? id;
    const spec = launchSpec(id, this.env.settings())!;
    const checkedAt = this.env.now();
    const dir = mkdtempSync(join(tmpdir(), "oar-probe-"));
    // A probe is short-lived: its own child, never the keeper's.
    const worker = new AcpWorker(
      spawnDirect(`probe-${id}`, { ...spec, cwd: dir }),
      dir,
      { onChunk() {}, onTask() {}, onTaskOutput() {}, askUser: async () => ({}), onExit() {} },
      adapter,
    );
    const ctx = { providerName: name, relayName: this.env.relayName, signIn: signInFor(id, this.env.settings()) };
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new ProbeTimeout()), PROBE_TIMEOUT_MS);
      });
      const exited = worker.exited.then(() => {
        throw new Error(`it exited at start${worker.stderr ? ` (${worker.stderr.trim().slice(-300)})` : ""}`);
      });
      const cliCheck = adapter.signInCheck
        ? runSignInCheck(spec, adapter.signInCheck, dir)
        : Promise.resolve(undefined);
      await Promise.race([worker.start(null, { probe: true }), timeout, exited]);
      // Claude's status push may trail session/new, or never come; its own CLI tells as well.
      let signedOut = worker.signedOut;
      if (signedOut === undefined && adapter.signedOut) {
        const signedIn = await cliCheck;
        if (signedIn !== undefined) signedOut = worker.signedOut ?? !signedIn;
        else if (await worker.waitForNotice("_auth/status_update", SIGN_IN_NOTICE_MS)) signedOut = worker.signedOut;
      }
      const models = advertisedModels(worker.advertised, adapter);
      const caps = worker.capabilities ? { capabilities: worker.capabilities } : {};
      if (signedOut)
        return {
          available: false,
          reason: signInReason(ctx),
          models: models.length ? models : null,
          checkedAt,
          ...caps,
        };
      return { available: true, models: models.length ? models : null, checkedAt, ...caps };
    } catch (err) {
      const caps = worker.capabilities ? { capabilities: worker.capabilities } : {};
      // A custom agent (contract §10.2): answering initialize is enough, unless it advertised
      // sign-in methods and session/new asked for one.
      if (adapter.customAgent && worker.capabilities && !(worker.authMethods > 0 && isAuthError(err)))
        return { available: true, models: null, checkedAt, ...caps };
      if (isAuthError(err)) return { available: false, reason: signInReason(ctx), checkedAt, ...caps };
      if (err instanceof ProbeTimeout) {
        const what = adapter.customAgent && !worker.capabilities ? "ACP initialize" : "its availability check";
        return {
          available: false,
          reason: `${name} did not answer ${what} on relay "${this.env.relayName}" within ${PROBE_TIMEOUT_MS / 1000} s (a first start may unpack the CLI; check again)`,
          checkedAt,
        };
      }
      const why = (err instanceof Error ? err.message : String(err)).replace(/^(Error:\s*)+/i, "").slice(0, 400);
      return { available: false, reason: `${name} did not start on relay "${this.env.relayName}": ${why}`, checkedAt };
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
    return {
      available: a.available,
      ...(a.reason ? { reason: a.reason } : {}),
      checkedAt: r ? new Date(r.checkedAt).toISOString() : null,
      checking: this.checking(id),
    };
  }
}

/** Runs the adapter's sign-in command; undefined when it cannot tell (failed, timed out, unreadable). */
function runSignInCheck(
  spec: LaunchSpec,
  check: NonNullable<ProviderAdapter["signInCheck"]>,
  cwd: string,
): Promise<boolean | undefined> {
  return new Promise((resolve) => {
    execFile(spec.command, [...check.args], { cwd, env: spec.env, timeout: SIGN_IN_NOTICE_MS }, (err, stdout) => {
      // Signed out exits 1 while still printing its answer.
      void err;
      resolve(typeof stdout === "string" && stdout.trim() ? check.signedIn(stdout) : undefined);
    });
  });
}
