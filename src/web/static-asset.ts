import { createHash } from "node:crypto";
import { brotliCompressSync, gzipSync, constants } from "node:zlib";

/** One file of the page, compressed both ways once at start, with its validator. */
export interface Asset {
  type: string;
  body: string;
  gzip: Uint8Array;
  br: Uint8Array;
  etag: string;
}

export function staticAsset(body: string, type: string): Asset {
  const raw = Buffer.from(body, "utf8");
  return {
    type,
    body,
    gzip: gzipSync(raw, { level: 9 }),
    br: brotliCompressSync(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length } }),
    etag: `"${createHash("sha256").update(raw).digest("base64url").slice(0, 22)}"`,
  };
}
