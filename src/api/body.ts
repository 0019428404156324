import { RelayError } from "../core/errors.ts";

// Request bodies are read as a stream and counted as they arrive, so a body sent without
// Content-Length (chunked) is refused the moment it passes the limit instead of after it has
// been held whole in memory (a 300 MB chunked POST once took the relay to 1.1 GB).

export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

/** A refusal that answers with its own HTTP status (413 for a body over the limit). */
export class HttpRefusal extends RelayError {
  constructor(
    code: ConstructorParameters<typeof RelayError>[0],
    message: string,
    readonly status: 400 | 413,
  ) {
    super(code, message);
  }
}

/** The client went away before its body arrived: nobody is left to answer, nothing to log. */
export class ClientGone extends Error {
  constructor() {
    super("The client closed the connection before its request body arrived.");
    this.name = "ClientGone";
  }
}

export const tooLarge = (max: number) =>
  new HttpRefusal(
    "REMOTE_RELAY_INVALID_INPUT",
    `The request body is larger than ${max} bytes (the relay's maxBodyMb setting). Nothing was done.`,
    413,
  );

/** Reads a request body as UTF-8 text, at most `max` bytes. */
export async function readBodyText(req: Request, max: number): Promise<string> {
  const declared = Number(req.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared > max) {
    req.body?.cancel().catch(() => {});
    throw tooLarge(max);
  }
  if (!req.body) return "";
  const reader = req.body.getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    let step: ReadableStreamReadResult<Uint8Array>;
    try {
      step = await reader.read();
    } catch {
      throw new ClientGone();
    }
    if (step.done) break;
    total += step.value.byteLength;
    if (total > max) {
      reader.cancel().catch(() => {});
      throw tooLarge(max);
    }
    parts.push(step.value);
  }
  return Buffer.concat(parts).toString("utf8");
}
