import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { newToken } from "../core/ids.ts";

/** DIR/owner-token: made on first start, mode 0600. */
export function ownerToken(dataDir: string): string {
  const file = join(dataDir, "owner-token");
  mkdirSync(dataDir, { recursive: true });
  if (existsSync(file)) {
    const t = readFileSync(file, "utf8").trim();
    if (t) return t;
  }
  const t = newToken();
  writeFileSync(file, `${t}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return t;
}
