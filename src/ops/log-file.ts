import { appendFileSync, existsSync, mkdirSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { format } from "node:util";

// `oar start --log-file`: the relay's log also goes to DATA/logs/oar.log, rotated at 10 MB
// with 3 older files kept (oar.log.1 … .3). Under systemd the journal keeps the log instead.
// The owner token is never logged (contract §8): only the start banner prints it, to stdout.

const MAX_BYTES = 10 * 1024 * 1024;
const KEEP = 3;

export class RotatingLog {
  readonly file: string;
  private size: number;

  constructor(dataDir: string) {
    const dir = join(dataDir, "logs");
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.file = join(dir, "oar.log");
    this.size = existsSync(this.file) ? statSync(this.file).size : 0;
  }

  write(line: string): void {
    const text = `${new Date().toISOString()} ${line}\n`;
    if (this.size + text.length > MAX_BYTES) this.rotate();
    appendFileSync(this.file, text, { mode: 0o600 });
    this.size += Buffer.byteLength(text);
  }

  private rotate(): void {
    rmSync(`${this.file}.${KEEP}`, { force: true });
    for (let i = KEEP - 1; i >= 1; i--)
      if (existsSync(`${this.file}.${i}`)) renameSync(`${this.file}.${i}`, `${this.file}.${i + 1}`);
    if (existsSync(this.file)) renameSync(this.file, `${this.file}.1`);
    this.size = 0;
  }

  /** Copies console.log/warn/error into the file (lines that carry the token excepted). */
  capture(secret: () => string): void {
    for (const level of ["log", "warn", "error"] as const) {
      const orig = console[level].bind(console);
      console[level] = (...args: unknown[]) => {
        orig(...args);
        const line = format(...args);
        const s = secret();
        try {
          this.write(s && line.includes(s) ? line.split(s).join("****") : line);
        } catch {}
      };
    }
  }
}
