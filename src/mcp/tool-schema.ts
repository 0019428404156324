import { z } from "zod";
import { ACTIONS } from "../actions/registry.ts";

const ACTION_LINES = ACTIONS.map((a) => `${a.name}${a.write ? " (write)" : ""}`).join(", ");

export const TOOL_DESCRIPTION = [
  "Work with other agent sessions through OAR: list and read sessions, prompt one and wait for its reply,",
  "start new sessions, wait, stop or archive. Every call names an `action`; every action except list_relays",
  'names a `relay` ("this" for the relay you run on). Results are JSON with ok, relay and summary, or ok:false',
  "with a code and an error that says what was not done.",
  `Actions: ${ACTION_LINES}.`,
].join(" ");

/** relay_tool's input schema: `action` plus the union of every action's fields, each
 * described. Permissive on purpose: the relay validates inside the handler so refusals
 * carry REMOTE_RELAY_INVALID_INPUT with the relay's own wording (STACK gotcha 4). */
export function toolInputSchema(): Record<string, unknown> {
  const properties: Record<string, unknown> = {
    action: { type: "string", enum: ACTIONS.map((a) => a.name), description: "What to do." },
    relay: { type: "string", description: 'Relay to act on: "this", this relay\'s name, or a paired relay as list_relays shows. Not needed for list_relays.' },
  };
  const usedBy = new Map<string, string[]>();
  for (const a of ACTIONS) {
    for (const [name, schema] of Object.entries(a.args)) {
      usedBy.set(name, [...(usedBy.get(name) ?? []), a.name]);
      if (properties[name]) continue;
      let json: Record<string, unknown>;
      try {
        json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
        delete json.$schema;
      } catch {
        json = {};
      }
      properties[name] = json;
    }
  }
  for (const [name, actions] of usedBy) {
    const p = properties[name] as Record<string, unknown>;
    p.description = `${p.description ?? name} (${actions.join(", ")})`;
  }
  return { type: "object", properties, required: ["action"], additionalProperties: true };
}
