// Where a session's images live: `<cwd>/images/<UTC time>-<n>.<ext>`, plus a small list of
// the session's own images (`images/.oar-<session>.json`) so "the last image" is known again
// after the agent process was stopped for idleness and started anew.
// The list is a file in the folder anyone may edit: what it names is only a candidate, and
// nothing is read, uploaded or written outside the session's folder (links resolved).
import { randomUUID } from "node:crypto";
import { mkdirSync, realpathSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { leadsInside, readInside } from "../../core/paths.ts";

export interface SavedImage {
  path: string;
  mimeType: string;
  bytes: number;
  /** "WIDTHxHEIGHT" when known. */
  size?: string;
}

/** The conversation's last image as the list names it; `outside`: it leads out of the folder. */
export interface LastImage {
  path: string;
  outside?: true;
}

const EXT: Record<string, string> = { png: "image/png", jpeg: "image/jpeg", webp: "image/webp" };

export class Gallery {
  /** The session's folder, links resolved. */
  readonly root: string;
  readonly listName: string;
  private listFile: string;
  images: SavedImage[] = [];

  constructor(cwd: string, sessionKey: string) {
    this.root = realpathSync(cwd);
    this.listName = `images/.oar-${sessionKey.replace(/[^\w-]/g, "_")}.json`;
    this.listFile = join(this.root, this.listName);
    // A list that is a link out of the folder is not read.
    const read = readInside(this.root, this.listFile);
    try {
      const list = "bytes" in read ? JSON.parse(read.bytes.toString("utf8")) : null;
      if (Array.isArray(list)) this.images = list.filter((i) => i && typeof i.path === "string");
    } catch {}
  }

  /** The newest listed image that still exists, or the newest listed path that leads outside. */
  get last(): LastImage | null {
    for (let i = this.images.length - 1; i >= 0; i--) {
      const path = resolve(this.root, this.images[i].path);
      const real = leadsInside(this.root, path);
      if (!real) return { path, outside: true };
      if (isFile(real)) return { path: real };
    }
    return null;
  }

  /** The images folder, links resolved, made when missing; null when it leads outside. */
  folder(): string | null {
    const real = leadsInside(this.root, join(this.root, "images"));
    if (real) mkdirSync(real, { recursive: true });
    return real;
  }

  /** Writes the images of one answer (base64) into `folder` (see folder()) and remembers them. */
  save(folder: string, b64s: string[], format: string, now: Date): SavedImage[] {
    const stamp = now
      .toISOString()
      .replace(/[-:]/g, "")
      .replace("T", "-")
      .replace(/\.(\d+)Z$/, "-$1");
    const ext = format === "jpeg" ? "jpg" : EXT[format] ? format : "png";
    const saved = b64s.map((b64, i) => {
      const bytes = Buffer.from(b64, "base64");
      const path = join(folder, `${stamp}-${i + 1}.${ext}`);
      // "wx": a name that exists, a link included, is never written through.
      writeFileSync(path, bytes, { flag: "wx" });
      const size = pixelSize(bytes);
      return { path, mimeType: EXT[format] ?? "image/png", bytes: bytes.length, ...(size ? { size } : {}) };
    });
    this.images.push(...saved);
    // Written beside it and renamed over it: a link in its place is replaced, not followed.
    const tmp = join(folder, `.oar-list-${randomUUID()}.tmp`);
    writeFileSync(tmp, JSON.stringify(this.images.slice(-200)), { flag: "wx" });
    renameSync(tmp, join(folder, this.listName.slice("images/".length)));
    return saved;
  }
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/** Width x height read from a PNG's header (the format the API returns by default). */
export function pixelSize(buf: Buffer): string | undefined {
  const png = buf.length >= 24 && buf.readUInt32BE(0) === 0x89504e47 && buf.toString("latin1", 12, 16) === "IHDR";
  return png ? `${buf.readUInt32BE(16)}x${buf.readUInt32BE(20)}` : undefined;
}
