import type { Context } from "hono";
import { RelayError, httpStatusOf } from "../core/errors.ts";

export const MAX_BODY_BYTES = 1024 * 1024;

/** Reads a JSON object body; anything else is a coded refusal. */
export async function jsonBody(c: Context): Promise<Record<string, unknown>> {
  const len = Number(c.req.header("content-length") ?? 0);
  if (len > MAX_BODY_BYTES) throw new RelayError("REMOTE_RELAY_INVALID_INPUT", `The request body is larger than ${MAX_BODY_BYTES} bytes. Nothing was done.`);
  const text = await c.req.text();
  if (text.length > MAX_BODY_BYTES) throw new RelayError("REMOTE_RELAY_INVALID_INPUT", `The request body is larger than ${MAX_BODY_BYTES} bytes. Nothing was done.`);
  if (!text.trim()) return {};
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new RelayError("REMOTE_RELAY_INVALID_INPUT", "The request body is not valid JSON. Nothing was done.");
  }
  if (!body || typeof body !== "object" || Array.isArray(body)) throw new RelayError("REMOTE_RELAY_INVALID_INPUT", "The request body must be a JSON object. Nothing was done.");
  return body as Record<string, unknown>;
}

export function errorResponse(c: Context, err: unknown): Response {
  if (err instanceof RelayError) return c.json(err.toJSON(), httpStatusOf(err.code));
  console.error("[api] unexpected failure:", err);
  return c.json({ ok: false, code: "REMOTE_RELAY_BUSY", error: "The relay could not carry out the request. Nothing was done." }, 500);
}
