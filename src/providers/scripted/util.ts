// Small shared helpers for the scripted test agent: cancellable waits, short ids,
// stderr logging (stdout belongs to the ACP protocol).

import { randomBytes } from "node:crypto";

export class Cancelled extends Error {
  constructor() {
    super("cancelled");
    this.name = "Cancelled";
  }
}

export function log(...parts: unknown[]): void {
  process.stderr.write(`[oar-scripted] ${parts.map((p) => (typeof p === "string" ? p : String(p))).join(" ")}\n`);
}

export function shortId(bytes = 4): string {
  return randomBytes(bytes).toString("hex");
}

export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new Cancelled();
}

/** Waits `ms` real milliseconds; rejects with Cancelled as soon as `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Cancelled());
    const onAbort = () => {
      clearTimeout(timer);
      reject(new Cancelled());
    };
    const timer = setTimeout(
      () => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** Never resolves; rejects with Cancelled when `signal` aborts. */
export function hang(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    if (signal.aborted) return reject(new Cancelled());
    signal.addEventListener("abort", () => reject(new Cancelled()), { once: true });
  });
}

/** Races `p` against `signal`: rejects with Cancelled when the signal aborts first. */
export function abortable<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    p.catch(() => {});
    return Promise.reject(new Cancelled());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Cancelled());
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
