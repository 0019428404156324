import type { ActionServices } from "../actions/services.ts";
import type { SecretMask } from "../core/secret-mask.ts";
import type { ToolListings } from "./tool-listings.ts";

/** What /mcp uses: the action path's services (whose identity, settings and sessions it reads
 * too) and the mask every result passes. The composition root hands it over (issue 19). */
export interface McpDeps {
  services: ActionServices;
  secretMask: Pick<SecretMask, "maskJson">;
  /** Told when an agent lists relay_tool and ends its MCP session (tool-listings.ts). */
  toolListings?: Pick<ToolListings, "listed" | "ended">;
}
