import type { Context } from "hono";
import type { ApiDeps } from "./deps.ts";

// Owner API answers carry message text, task output and cards, where a secret may have been
// pasted: masked on the way out. Routes whose purpose is to hand out a secret are left alone.
const HANDS_OUT_SECRET = [/\/sessions\/[^/]+\/mcp$/, /\/pairing-tokens$/, /\/stream-ticket$/];

export async function maskResponse(c: Context, d: Pick<ApiDeps, "secretMask">): Promise<void> {
  const res = c.res;
  if (!res.headers.get("content-type")?.includes("application/json")) return;
  if (HANDS_OUT_SECRET.some((r) => r.test(c.req.path))) return;
  const text = await res.text();
  const masked = d.secretMask.maskJson(text);
  const headers = new Headers(res.headers);
  headers.delete("content-length");
  c.res = new Response(masked, { status: res.status, statusText: res.statusText, headers });
}
