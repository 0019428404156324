// What an agent's `initialize` advertised that the owner and other agents care about
// (contract §10.2): whether a new process can continue a conversation (`session/load`,
// `session/resume`), whether it takes images, whether it reaches MCP servers over HTTP
// (relay_tool's transport). False when unknown (not probed yet, or not an ACP agent we probe).

export interface Capabilities {
  loadSession: boolean;
  resume: boolean;
  images: boolean;
  mcpHttp: boolean;
}

export const UNKNOWN_CAPABILITIES: Capabilities = Object.freeze({
  loadSession: false,
  resume: false,
  images: false,
  mcpHttp: false,
});

const obj = (v: unknown): Record<string, unknown> =>
  v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** Reads `agentCapabilities` of an initialize response (ACP; `sessionCapabilities.resume` is
 * the unstable-schema place for resume, an object when offered). */
export function readCapabilities(initialize: unknown): Capabilities {
  const caps = obj(obj(initialize).agentCapabilities);
  const session = obj(caps.sessionCapabilities);
  return {
    loadSession: caps.loadSession === true,
    resume: session.resume !== undefined && session.resume !== null && session.resume !== false,
    images: obj(caps.promptCapabilities).image === true,
    mcpHttp: obj(caps.mcpCapabilities).http === true,
  };
}
