import { createHash } from "node:crypto";
/** How the fake ACP agent reports a variable's value (the relay masks its secrets in output). */
export const hash = (v: string) => `#${createHash("sha256").update(v).digest("hex").slice(0, 12)}`;
