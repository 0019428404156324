import type { Context } from "hono";
import { RelayError, httpStatusOf } from "../core/errors.ts";
import { ClientGone, DEFAULT_MAX_BODY_BYTES, HttpRefusal, readBodyText } from "./body.ts";

/** The body limit the owner API middleware put on the request (the maxBodyMb setting). */
export const MAX_BODY_KEY = "oarMaxBodyBytes";
const maxBodyOf = (c: Context): number =>
  (c.get(MAX_BODY_KEY as never) as number | undefined) ?? DEFAULT_MAX_BODY_BYTES;

/** Reads a JSON object body; anything else is a coded refusal. */
export async function jsonBody(c: Context): Promise<Record<string, unknown>> {
  const text = await readBodyText(c.req.raw, maxBodyOf(c));
  if (!text.trim()) return {};
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new RelayError("REMOTE_RELAY_INVALID_INPUT", "The request body is not valid JSON. Nothing was done.");
  }
  if (!body || typeof body !== "object" || Array.isArray(body))
    throw new RelayError("REMOTE_RELAY_INVALID_INPUT", "The request body must be a JSON object. Nothing was done.");
  return body as Record<string, unknown>;
}

/** Refuses fields a route does not take: `takes` lists them in words, `nothing` ends the sentence. */
export function refuseUnknownFields(
  body: Record<string, unknown>,
  keys: Set<string>,
  takes: string,
  nothing: string,
): void {
  const extra = Object.keys(body).filter((k) => !keys.has(k));
  if (!extra.length) return;
  const names = extra
    .slice(0, 5)
    .map((k) => JSON.stringify(k.slice(0, 40)))
    .join(", ");
  throw new RelayError(
    "REMOTE_RELAY_INVALID_INPUT",
    `Unknown field${extra.length > 1 ? "s" : ""} ${names}: ${takes}. ${nothing}`,
  );
}

export function errorResponse(c: Context, err: unknown): Response {
  if (err instanceof HttpRefusal) return c.json(err.toJSON(), err.status);
  if (err instanceof RelayError) return c.json(err.toJSON(), httpStatusOf(err.code));
  // A client that hung up mid-body is not the relay's failure: answer (nobody reads it), log nothing.
  if (err instanceof ClientGone)
    return c.json({ ok: false, code: "REMOTE_RELAY_INVALID_INPUT", error: err.message }, 400);
  console.error("[api] unexpected failure:", err);
  return c.json(
    { ok: false, code: "REMOTE_RELAY_BUSY", error: "The relay could not carry out the request. Nothing was done." },
    500,
  );
}
