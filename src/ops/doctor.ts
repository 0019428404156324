import Database from "better-sqlite3";
import { existsSync, statfsSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { providerAvailability, providerList, type Availability } from "../providers/catalog.ts";
import { ProviderProbes } from "../providers/probes.ts";
import { openModes } from "../core/data-dir.ts";
import { describeHolder, runningRelay } from "./pid-file.ts";

// `oar doctor`: checks what a relay needs and says what to fix. Read-only: it changes nothing.

export interface Check {
  status: "ok" | "warn" | "fail";
  what: string;
  /** What to do about it (warn and fail). */
  fix?: string;
}

export interface DoctorOptions {
  dataDir: string;
  port: number;
  host: string;
  /** Overridable in tests. */
  nodeVersion?: string;
  minFreeBytes?: number;
}

const GB = 1024 ** 3;

export async function doctor(o: DoctorOptions): Promise<Check[]> {
  const checks: Check[] = [];
  const node = o.nodeVersion ?? process.versions.node;
  const major = Number(node.split(".")[0]);
  checks.push(
    major >= 20
      ? { status: "ok", what: `Node ${node}` }
      : {
          status: "fail",
          what: `Node ${node} is too old`,
          fix: "install Node 20 or newer (https://nodejs.org, or your package manager)",
        },
  );

  if (!existsSync(o.dataDir)) {
    checks.push({
      status: "warn",
      what: `data folder ${o.dataDir} does not exist yet`,
      fix: "it is made (0700) on the first `oar start`",
    });
  } else {
    const open = openModes(o.dataDir);
    checks.push(
      open.length
        ? {
            status: "fail",
            what: `data folder readable by others: ${open.slice(0, 5).join("; ")}${open.length > 5 ? ` and ${open.length - 5} more` : ""}`,
            fix: `chmod -R go-rwx ${o.dataDir} (or start the relay once: it tightens the modes)`,
          }
        : { status: "ok", what: `data folder ${o.dataDir} is private (0700, files 0600)` },
    );
  }

  const settings = readSettings(o.dataDir);
  // An installed CLI is started once the way a session would start it, to learn whether it
  // is signed in (the providers' own probe); the others are judged by PATH and settings.
  const probes = new ProviderProbes({ relayName: "doctor", settings: () => settings, now: () => Date.now() });
  const probed = new Map<string, Availability>();
  await Promise.all(
    providerList().map(async ({ id }) => {
      if (!probes.probeable(id)) return;
      const r = await probes.check(id).catch(() => undefined);
      if (r) probed.set(id, { available: r.available, reason: r.reason });
    }),
  );
  for (const p of providerList()) {
    if (p.id === "scripted") continue;
    const a = probed.get(p.id) ?? providerAvailability(p.id, { settings });
    checks.push(
      a.available
        ? { status: "ok", what: `provider ${p.name}: ${p.command ? `${p.command} found` : "set up"}` }
        : {
            status: "warn",
            what: `provider ${p.name} is not available: ${a.reason}`,
            fix: p.install
              ? probed.has(p.id)
                ? `sign in to ${p.command} (run it once in a terminal)`
                : `${p.install}, then sign in to it`
              : `add ${p.secret ?? "its key"} in Settings → Providers`,
          },
    );
  }

  const running = existsSync(o.dataDir) ? await runningRelay(o.dataDir) : null;
  if (running)
    checks.push({
      status: "ok",
      what:
        running.pid !== null
          ? `the relay runs on this data folder (pid ${running.pid}, port ${running.port})`
          : `${describeHolder(running)} holds this data folder`,
    });
  else {
    const free = await portFree(o.host, o.port);
    checks.push(
      free
        ? { status: "ok", what: `port ${o.port} on ${o.host} is free` }
        : {
            status: "fail",
            what: `port ${o.port} on ${o.host} is taken by another program`,
            fix: `stop that program, or start the relay with --port <another port>`,
          },
    );
  }

  try {
    const fs = statfsSync(existsSync(o.dataDir) ? o.dataDir : join(o.dataDir, ".."));
    const freeBytes = fs.bavail * fs.bsize;
    const min = o.minFreeBytes ?? GB;
    checks.push(
      freeBytes >= min
        ? { status: "ok", what: `${(freeBytes / GB).toFixed(1)} GB free for the data folder` }
        : {
            status: "fail",
            what: `only ${(freeBytes / 1024 / 1024).toFixed(0)} MB free for the data folder`,
            fix: "free disk space (task output can take up to taskOutputTotalMb, 1 GB by default)",
          },
    );
  } catch {
    checks.push({ status: "warn", what: "free disk space could not be read", fix: "check it with df" });
  }
  return checks;
}

/** The stored settings (provider keys decide availability), read without the relay. */
function readSettings(dataDir: string): Record<string, unknown> {
  const file = join(dataDir, "oar.db");
  if (!existsSync(file)) return {};
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      const out: Record<string, unknown> = {};
      for (const r of db.prepare("SELECT key, value FROM settings").all() as { key: string; value: string }[]) {
        try {
          out[r.key] = JSON.parse(r.value);
        } catch {}
      }
      return out;
    } finally {
      db.close();
    }
  } catch {
    return {};
  }
}

function portFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once("error", () => resolve(false));
    s.listen(port, host, () => s.close(() => resolve(true)));
  });
}

export function formatChecks(checks: Check[]): string {
  const mark = { ok: "ok  ", warn: "warn", fail: "FAIL" } as const;
  const lines = checks.map((c) => `${mark[c.status]}  ${c.what}${c.fix ? `\n      → ${c.fix}` : ""}`);
  const fails = checks.filter((c) => c.status === "fail").length;
  const warns = checks.filter((c) => c.status === "warn").length;
  lines.push(
    fails
      ? `${fails} problem${fails > 1 ? "s" : ""} to fix.`
      : warns
        ? `No problem; ${warns} note${warns > 1 ? "s" : ""}.`
        : "All good.",
  );
  return lines.join("\n");
}
