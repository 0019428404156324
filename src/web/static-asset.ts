import { createHash } from "node:crypto";
import { brotliCompressSync, gzipSync, constants } from "node:zlib";

/** One file of the page with its validator, compressed each way once, on the first request
 * that asks for that encoding: compressing every file at start (brotli at quality 11) was
 * most of the relay's start-up time (issue 14). */
export interface Asset {
  type: string;
  body: string;
  gzip: Uint8Array;
  br: Uint8Array;
  etag: string;
}

export function staticAsset(body: string, type: string): Asset {
  const raw = Buffer.from(body, "utf8");
  let gzip: Uint8Array | undefined;
  let br: Uint8Array | undefined;
  return {
    type,
    body,
    get gzip() {
      return (gzip ??= gzipSync(raw, { level: 9 }));
    },
    get br() {
      return (br ??= brotliCompressSync(raw, {
        params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length },
      }));
    },
    etag: `"${createHash("sha256").update(raw).digest("base64url").slice(0, 22)}"`,
  };
}
