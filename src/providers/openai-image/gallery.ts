// Where a session's images live: `<cwd>/images/<UTC time>-<n>.<ext>`, plus a small list of
// the session's own images (`images/.oar-<session>.json`) so "the last image" is known again
// after the agent process was stopped for idleness and started anew.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface SavedImage {
  path: string;
  mimeType: string;
  bytes: number;
  /** "WIDTHxHEIGHT" when known. */
  size?: string;
}

const EXT: Record<string, string> = { png: "image/png", jpeg: "image/jpeg", webp: "image/webp" };

export class Gallery {
  readonly folder: string;
  private listFile: string;
  images: SavedImage[] = [];

  constructor(cwd: string, sessionKey: string) {
    this.folder = join(cwd, "images");
    this.listFile = join(this.folder, `.oar-${sessionKey.replace(/[^\w-]/g, "_")}.json`);
    try {
      const list = JSON.parse(readFileSync(this.listFile, "utf8"));
      if (Array.isArray(list)) this.images = list.filter((i) => i && typeof i.path === "string");
    } catch {}
  }

  get last(): string | null {
    for (let i = this.images.length - 1; i >= 0; i--) if (existsSync(this.images[i].path)) return this.images[i].path;
    return null;
  }

  /** Writes the images of one answer (base64) and remembers them. */
  save(b64s: string[], format: string, now: Date): SavedImage[] {
    mkdirSync(this.folder, { recursive: true });
    const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").replace(/\.(\d+)Z$/, "-$1");
    const ext = format === "jpeg" ? "jpg" : EXT[format] ? format : "png";
    const saved = b64s.map((b64, i) => {
      const bytes = Buffer.from(b64, "base64");
      const path = join(this.folder, `${stamp}-${i + 1}.${ext}`);
      writeFileSync(path, bytes, { flag: "wx" });
      const size = pixelSize(bytes);
      return { path, mimeType: EXT[format] ?? "image/png", bytes: bytes.length, ...(size ? { size } : {}) };
    });
    this.images.push(...saved);
    writeFileSync(this.listFile, JSON.stringify(this.images.slice(-200)));
    return saved;
  }
}

/** Width x height read from a PNG's header (the format the API returns by default). */
export function pixelSize(buf: Buffer): string | undefined {
  const png = buf.length >= 24 && buf.readUInt32BE(0) === 0x89504e47 && buf.toString("latin1", 12, 16) === "IHDR";
  return png ? `${buf.readUInt32BE(16)}x${buf.readUInt32BE(20)}` : undefined;
}
