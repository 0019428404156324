import type { z } from "zod";
import type { ActionContext, ActionDef, Result } from "./types.ts";

// One relay_tool action from its schemas (issue 19): the handler's arguments are typed by what
// the dispatcher parsed them with, so no handler casts an argument.

/** The arguments a handler gets: each as its schema outputs it, those in `required` always
 * there, the others only when the call gave them (empty values count as not given), and
 * `relay` as the call named it. */
export type ArgsOf<S extends Record<string, z.ZodType>, R extends keyof S> = {
  [K in Exclude<keyof S, R>]?: z.output<S[K]>;
} & { [K in R]: z.output<S[K]> } & { relay?: string };

export interface ActionSpec<S extends Record<string, z.ZodType>, R extends keyof S & string>
  extends Omit<ActionDef, "args" | "nothing" | "required" | "handler"> {
  /** The end of every refusal of this action: what was not done ("Nothing was sent."). */
  nothing: string;
  /** The arguments it takes besides `action` and `relay`; each a schema with its description. */
  args: S;
  /** Arguments it cannot go without, each with what it is, in the order they are checked:
   * `{ text: "the prompt to queue" }` refuses with "send needs text: the prompt to queue.
   * Nothing was sent." (dispatch.ts `needs`). */
  required?: { [K in R]: string };
  handler(ctx: ActionContext, args: ArgsOf<S, R>): Result | Promise<Result>;
}

export function defineAction<S extends Record<string, z.ZodType>, R extends keyof S & string = never>(
  spec: ActionSpec<S, R>,
): ActionDef {
  // The one erasure: the dispatcher parsed every argument it passes with spec.args and checked
  // spec.required before calling, which is what ArgsOf promises.
  return spec as unknown as ActionDef;
}
