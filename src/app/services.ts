import type { ApiDeps } from "../api/deps.ts";
import type { McpDeps } from "../mcp/deps.ts";
import type { PeerDeps } from "../peer/routes.ts";
import type { WebDeps } from "../web/ui.ts";

/** What the surfaces get, built once by app/build.ts: the owner API's deps (the action path's
 * services and the owner's extras), which cover the web page's too; /mcp and /peer/v1 take
 * theirs out of it (app/server.ts). */
export type AppServices = ApiDeps & WebDeps & Pick<McpDeps, "secretMask" | "toolListings"> & Pick<PeerDeps, "bus">;
