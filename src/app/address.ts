import type { Address } from "../actions/services.ts";

/** Where agents and the owner reach this relay: set once, when the server listens
 * (app/server.ts); empty before. */
export class ListenAddress implements Address {
  mcpUrl = "";
  baseUrl = "";

  /** `local`: the loopback URL of the port the server took. */
  listening(local: string): void {
    this.mcpUrl = `${local}/mcp`;
    this.baseUrl = local;
  }

  openUrl = (sessionId: string): string | undefined =>
    this.baseUrl ? `${this.baseUrl}/#session=${sessionId}` : undefined;
}
