import { fileURLToPath } from "node:url";

// An image an agent made, as the reply message keeps it in `meta.images` (SHAPES.md). Agents
// report one as an ACP `resource_link` content chunk to a local file with an image/* type
// (the OpenAI Image agent does); `_meta.oar.size` may carry its pixel size.
export interface ImageRef {
  path: string;
  mimeType: string;
  bytes: number;
  size?: string;
}

export function imageOfLink(content: unknown): ImageRef | null {
  const c = content as {
    type?: unknown;
    uri?: unknown;
    mimeType?: unknown;
    size?: unknown;
    _meta?: { oar?: { size?: unknown } };
  } | null;
  if (c?.type !== "resource_link" || typeof c.uri !== "string" || !c.uri.startsWith("file:")) return null;
  if (typeof c.mimeType !== "string" || !c.mimeType.startsWith("image/")) return null;
  let path: string;
  try {
    path = fileURLToPath(c.uri);
  } catch {
    return null;
  }
  const size = c._meta?.oar?.size;
  return {
    path,
    mimeType: c.mimeType,
    bytes: typeof c.size === "number" ? c.size : 0,
    ...(typeof size === "string" ? { size } : {}),
  };
}
