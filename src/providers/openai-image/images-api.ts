// The OpenAI Images API through the official SDK: generate, or edit one image file. The SDK
// retries 429s and 5xx answers itself (twice, with backoff, honouring retry-after); what
// still fails becomes one sentence naming OpenAI and what the owner can do.
import { extname } from "node:path";
import OpenAI, { APIConnectionError, APIError, APIUserAbortError, toFile } from "openai";
import type { TurnOptions } from "./options.ts";

export interface ImagesResult {
  b64s: string[];
  format: string;
  usage?: { inputTokens?: number; outputTokens?: number };
}

export class Cancelled extends Error {}

/** A failure worded for the owner, with the relay's kind of it (turn-errors.ts). */
export class ImagesFailure extends Error {
  constructor(
    message: string,
    readonly kind: "auth" | "rate_limit" | "config" | "protocol",
  ) {
    super(message);
  }
}

const MIME: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".webp": "image/webp",
};

export function openaiClient(apiKey: string, baseURL: string): OpenAI {
  return new OpenAI({ apiKey, baseURL, maxRetries: 2 });
}

/** One generate or edit request; `image` set means edit that image (its bytes, read from inside
 * the session's folder, and its file name). */
export async function requestImages(
  client: OpenAI,
  prompt: string,
  o: TurnOptions,
  image: { bytes: Buffer; name: string } | null,
  signal: AbortSignal,
): Promise<ImagesResult> {
  const common = {
    prompt,
    model: o.model,
    n: o.n,
    ...(o.size !== "auto" ? { size: o.size } : {}),
    ...(o.quality !== "auto" ? { quality: o.quality as "low" | "medium" | "high" } : {}),
    // DALL·E models answer with URLs unless asked; gpt-image models always send base64.
    ...(o.model.startsWith("dall-e") ? { response_format: "b64_json" as const } : {}),
  };
  try {
    const res = image
      ? await client.images.edit(
          {
            ...common,
            image: await toFile(image.bytes, image.name, {
              type: MIME[extname(image.name).toLowerCase()] ?? "image/png",
            }),
          },
          { signal },
        )
      : await client.images.generate(common, { signal });
    const b64s = (res.data ?? [])
      .map((d) => d.b64_json)
      .filter((b): b is string => typeof b === "string" && b.length > 0);
    if (!b64s.length)
      throw new ImagesFailure(
        "OpenAI answered without any image data; no image was made. Try the prompt again.",
        "protocol",
      );
    const usage = res.usage
      ? { inputTokens: res.usage.input_tokens, outputTokens: res.usage.output_tokens }
      : undefined;
    return { b64s, format: res.output_format ?? "png", ...(usage ? { usage } : {}) };
  } catch (err) {
    if (signal.aborted || err instanceof APIUserAbortError) throw new Cancelled();
    if (err instanceof ImagesFailure) throw err;
    throw new ImagesFailure(inWords(err, client.baseURL), kindOf(err));
  }
}

function kindOf(err: unknown): ImagesFailure["kind"] {
  if (err instanceof APIConnectionError) return "config";
  const status = err instanceof APIError ? (err.status ?? 0) : 0;
  return status === 401 || status === 403 ? "auth" : status === 429 ? "rate_limit" : "protocol";
}

/** What went wrong, for the owner: who refused, why, and what to do. */
export function inWords(err: unknown, baseURL: string): string {
  if (err instanceof APIConnectionError) {
    return `Could not reach OpenAI at ${baseURL} (${err.message}). Check the network and the openaiBaseUrl setting; no image was made.`;
  }
  if (!(err instanceof APIError)) return err instanceof Error ? err.message : String(err);
  const body = err.error as { message?: unknown } | undefined;
  const said = typeof body?.message === "string" && body.message ? body.message : err.message;
  const code = err.code ?? "";
  const status = err.status ?? 0;
  if (status === 400 && (code === "content_policy_violation" || code === "moderation_blocked")) {
    return `OpenAI refused the prompt under its content policy (${code}): ${said} Rephrase the prompt; no image was made.`;
  }
  if (status === 401)
    return `OpenAI did not accept the API key (401): ${said} Set a valid key in Settings → Providers (openaiApiKey); no image was made.`;
  if (status === 403)
    return `OpenAI refused access (403): ${said} The key's organization may need verification for this model; no image was made.`;
  if (status === 429 && code === "insufficient_quota") {
    return `OpenAI says the account has no quota left (429 insufficient_quota): ${said} Add credit or raise the limit in the OpenAI account; no image was made.`;
  }
  if (status === 429)
    return `OpenAI's rate limit was reached (429), also after retrying: ${said} Wait a minute and send the prompt again; no image was made.`;
  if (status >= 500)
    return `OpenAI failed (${status}), also after retrying: ${said} Try again later; no image was made.`;
  return `OpenAI refused the request (${status}${code ? ` ${code}` : ""}): ${said} No image was made.`;
}
