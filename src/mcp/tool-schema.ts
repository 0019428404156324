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

/** relay_tool's input schema: `action` plus every action's fields, each described. A field
 * several actions take (`provider` in send and create_session, `session`, `text`, …) is one
 * property whose schema is the union of theirs — enums merged, differing shapes as anyOf — so
 * a schema-checking agent never loses a value one of the actions takes; its description says
 * per action what it means. Permissive on purpose: the relay validates inside the handler so
 * refusals carry REMOTE_RELAY_INVALID_INPUT with the relay's own wording (STACK gotcha 4). */
export function toolInputSchema(): Record<string, unknown> {
  const properties: Record<string, unknown> = {
    action: { type: "string", enum: ACTIONS.map((a) => a.name), description: "What to do." },
    relay: {
      type: "string",
      description:
        'Relay to act on: "this", this relay\'s name, or a paired relay as list_relays shows. Not needed for list_relays.',
    },
  };
  const byField = new Map<string, { action: string; json: Record<string, unknown> }[]>();
  for (const a of ACTIONS) {
    for (const [name, schema] of Object.entries(a.args)) {
      let json: Record<string, unknown>;
      try {
        json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
        delete json.$schema;
      } catch {
        json = {};
      }
      byField.set(name, [...(byField.get(name) ?? []), { action: a.name, json }]);
    }
  }
  for (const [name, uses] of byField) properties[name] = unionOf(name, uses);
  return { type: "object", properties, required: ["action"], additionalProperties: true };
}

function unionOf(name: string, uses: { action: string; json: Record<string, unknown> }[]): Record<string, unknown> {
  const bare = uses.map(({ json }) => {
    const { description: _d, ...rest } = json;
    return rest;
  });
  const distinct: Record<string, unknown>[] = [];
  for (const b of bare) if (!distinct.some((d) => JSON.stringify(d) === JSON.stringify(b))) distinct.push(b);
  let schema: Record<string, unknown>;
  if (distinct.length === 1) schema = { ...distinct[0] };
  else if (distinct.every((d) => d.type === "string" && Array.isArray(d.enum) && Object.keys(d).length === 2)) {
    schema = { type: "string", enum: [...new Set(distinct.flatMap((d) => d.enum as string[]))] };
  } else if (distinct.some((d) => Object.keys(d).length === 0))
    schema = {}; // one of them takes anything
  else schema = { anyOf: distinct };
  // One description per distinct text, naming the actions it applies to.
  const texts = new Map<string, string[]>();
  for (const u of uses) {
    const t = typeof u.json.description === "string" ? u.json.description : name;
    texts.set(t, [...(texts.get(t) ?? []), u.action]);
  }
  schema.description =
    texts.size === 1
      ? `${[...texts.keys()][0]} (${uses.map((u) => u.action).join(", ")})`
      : [...texts].map(([t, actions]) => `${actions.join(", ")}: ${t}`).join(" | ");
  return schema;
}
