import type { z } from "zod";

// An argument whose refusal is a sentence of its own (the contract's wording, e.g. subscribe's
// "match must be text (at most 200 characters) that an event's line contains.") rather than
// the dispatcher's generic "<name> is not valid (…)". The schema carries it in this map, which
// is private on purpose: metadata in zod's global registry would show in tools/list. (A plain
// WeakMap rather than z.registry: zod types a registry's metadata per schema, which turns the
// function's `issues` parameter into a type zod's own errors do not satisfy.)

/** The sentence, or how to make it from the value and what zod found wrong with it. */
export type Words = string | ((value: unknown, issues: readonly z.core.$ZodIssue[]) => string);

const refusals = new WeakMap<z.ZodType, Words>();

/** `schema` with its own refusal sentence. */
export function withWords<T extends z.ZodType>(schema: T, words: Words): T {
  refusals.set(schema, words);
  return schema;
}

/** The sentence refusing `value`, when its schema has one. */
export function refusalWords(schema: z.ZodType, value: unknown, error: z.ZodError): string | undefined {
  const words = refusals.get(schema);
  return typeof words === "function" ? words(value, error.issues) : words;
}
