import { Hono } from "hono";
import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { extname, isAbsolute } from "node:path";
import { RelayError } from "../core/errors.ts";
import type { SessionStore } from "../sessions/session-store.ts";
import { isInside } from "../core/paths.ts";

// `GET /api/sessions/:id/files?path=ABS`: an image file that lies under the session's folder
// (the images an OpenAI Image session made, `meta.images`), so the web page can show it.
// Only raster images are served (never SVG or HTML, which a browser would run), and only from
// inside the folder, symbolic links resolved.
const TYPES: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".webp": "image/webp",
  ".gif": "image/gif",
};
const NOTHING = "Nothing was sent.";

export function sessionFileRoutes(sessions: SessionStore): Hono {
  const app = new Hono();
  app.get("/:id/files", (c) => {
    const s = sessions.get(c.req.param("id"));
    if (!s)
      throw new RelayError(
        "REMOTE_RELAY_NOT_FOUND",
        `No session "${c.req.param("id").slice(0, 80)}" on this relay. ${NOTHING}`,
      );
    const path = c.req.query("path") ?? "";
    if (!isAbsolute(path))
      throw new RelayError(
        "REMOTE_RELAY_INVALID_INPUT",
        `path must be an absolute path of a file in the session's folder (${s.cwd}). ${NOTHING}`,
      );
    const type = TYPES[extname(path).toLowerCase()];
    if (!type)
      throw new RelayError(
        "REMOTE_RELAY_INVALID_INPUT",
        `Only images are served (${Object.keys(TYPES).join(", ")}); "${path.slice(0, 300)}" is not one. ${NOTHING}`,
      );
    const folder = existsSync(s.cwd) ? realpathSync(s.cwd) : s.cwd;
    const real = existsSync(path) ? realpathSync(path) : path;
    if (!isInside(folder, real))
      throw new RelayError(
        "REMOTE_RELAY_FORBIDDEN",
        `"${path.slice(0, 300)}" is not inside the folder of session "${s.title}" (${s.cwd}). ${NOTHING}`,
      );
    if (!existsSync(real) || !statSync(real).isFile())
      throw new RelayError("REMOTE_RELAY_NOT_FOUND", `There is no file "${path.slice(0, 300)}". ${NOTHING}`);
    const body = readFileSync(real);
    return c.body(body, 200, {
      "content-type": type,
      "content-length": String(body.length),
      "x-content-type-options": "nosniff",
      "cache-control": "private, max-age=3600",
    });
  });
  return app;
}
