import { Hono, type Context } from "hono";
import { readFileSync, readdirSync } from "node:fs";
import { homedir } from "node:os";
import { sep } from "node:path";
import type { Identity } from "../actions/services.ts";
import { CATALOG } from "../providers/catalog.ts";
import { packageFile } from "../core/package-paths.ts";
import { staticAsset, type Asset } from "./static-asset.ts";
import { iconSprite, vendorAssets } from "./vendor.ts";

// The web UI: one static page plus its plain ES modules and stylesheet (no build step), and
// three pinned libraries served from node_modules (vendor.ts). Every file is read and hashed
// on the first request for the page and compressed once on first asking (static-asset.ts); the page reads the owner token from the URL fragment and
// talks to the owner API and its SSE stream; nothing served here needs or holds the token.

// From the package root: the compiled bundle serves the same files as the sources.
const dir = (p: string) => packageFile(`src/web/${p}`);

/** The provider table for the New session form: static data only; availability comes from
 * GET /api/providers when the relay has it. */
const catalogJson = () =>
  JSON.stringify(
    Object.values(CATALOG).map((p) => ({
      id: p.id,
      name: p.name,
      defaultModel: p.defaultModel,
      models: p.models ?? [],
      efforts: p.efforts,
    })),
  )
    // Inside <script>, "<" could close the element; JSON allows it escaped.
    .replace(/</g, "\\u003c");

const TYPES: Record<string, string> = { js: "text/javascript; charset=utf-8", css: "text/css; charset=utf-8" };

const APP_FILES: [string, string, string][] = [
  ["/manifest.webmanifest", "./manifest.webmanifest", "application/manifest+json"],
  ["/icon.svg", "./icon.svg", "image/svg+xml"],
  ["/sw.js", "./sw.js", "text/javascript; charset=utf-8"],
];

/** Loaded when a view first needs them, not with the page: file diffs, code colours, the chart. */
const ON_DEMAND = new Set(["vendor-diff.js", "vendor-hljs.js", "vendor-uplot.js", "push-actions.js"]);

interface Files {
  /** index.html with what every relay shares filled in. */
  page: string;
  assets: Map<string, Asset>;
}
let files: Files | undefined;

/** Every asset is read once, on the first request for the page or one of its files (not at
 * start: a relay nobody opens the page of never holds them; issue 14). A fixed list, so no
 * request can name another file. */
function pageFiles(): Files {
  if (files) return files;
  const assets = new Map<string, Asset>();
  for (const name of readdirSync(dir("./app/"))) {
    const ext = name.split(".").pop() ?? "";
    if (TYPES[ext]) assets.set(name, staticAsset(readFileSync(dir(`./app/${name}`), "utf8"), TYPES[ext]));
  }
  for (const [name, body] of vendorAssets())
    assets.set(`vendor-${name}`, staticAsset(body, TYPES[name.split(".").pop() ?? "js"]));
  /** Every module the page imports at start, announced up front: the browser fetches them in
   * parallel instead of discovering them import by import. (Those a view needs load then.) */
  const preload = [...assets.keys()]
    .filter((n) => n.endsWith(".js") && !ON_DEMAND.has(n))
    .map((n) => `<link rel="modulepreload" href="/app/${n}">`)
    .join("\n");
  const page = readFileSync(dir("./index.html"), "utf8")
    .replace("__CATALOG__", () => catalogJson())
    .replace("__PRELOAD__", () => preload)
    .replace("__ICONS__", () => iconSprite());
  return (files = { page, assets });
}

const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  // blob: for images the page fetched with the owner token (an <img> cannot send it).
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const SECURITY = {
  "content-security-policy": CSP,
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};

/** Answers with the smallest encoding the browser takes, or 304 when it holds this version. */
function send(c: Context, a: Asset): Response {
  const headers: Record<string, string> = {
    ...SECURITY,
    "content-type": a.type,
    "cache-control": "no-cache",
    etag: a.etag,
    vary: "accept-encoding",
  };
  if (c.req.header("if-none-match") === a.etag) return c.body(null, 304, headers);
  const accepts = c.req.header("accept-encoding") ?? "";
  if (/\bbr\b/.test(accepts))
    return c.body(a.br as Uint8Array<ArrayBuffer>, 200, { ...headers, "content-encoding": "br" });
  if (/\bgzip\b/.test(accepts))
    return c.body(a.gzip as Uint8Array<ArrayBuffer>, 200, { ...headers, "content-encoding": "gzip" });
  return c.body(a.body, 200, headers);
}

/** The data folder as the login card names it (where owner-token is): under the home
 * folder as ~/…, which also keeps the user name off a page anyone reaching the port can load. */
export function shownDataDir(dataDir: string, home = homedir()): string {
  return home && home !== "/" && dataDir.startsWith(home + sep) ? `~${dataDir.slice(home.length)}` : dataDir;
}

/** What the page uses: which data folder its login card names. */
export interface WebDeps {
  identity: Pick<Identity, "dataDir">;
}

export function webUi(d: WebDeps): Hono {
  const app = new Hono();
  let page: Asset | undefined;
  const pageAsset = () =>
    (page ??= staticAsset(
      pageFiles().page.replace("__DATA_DIR__", () =>
        JSON.stringify(shownDataDir(d.identity.dataDir)).replace(/</g, "\\u003c"),
      ),
      "text/html; charset=utf-8",
    ));
  // Headers set per route: a "*" middleware here would also match paths of the other
  // apps mounted on the same server.
  app.get("/", (c) => send(c, pageAsset()));
  // The installable web app (contract §10.3): its manifest, icon and service worker, from / so
  // the worker's scope is the whole page.
  for (const [path, file, type] of APP_FILES) {
    let asset: Asset | undefined;
    app.get(path, (c) => send(c, (asset ??= staticAsset(readFileSync(dir(file), "utf8"), type))));
  }
  app.get("/app/:name", (c) => {
    const a = pageFiles().assets.get(c.req.param("name"));
    if (!a) return c.text("Not found", 404, SECURITY);
    return send(c, a);
  });
  return app;
}
