import type { z } from "zod";

// A refused owner API body or setting is told in the relay's own words ("text is longer than 200000
// characters"), never in the schema library's ("Too big: expected string to have <=200000
// characters"), which the page would show to the owner as it is.

const TYPE_WORDS: Record<string, string> = {
  string: "text",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  object: "an object",
  array: "a list",
};

/** The issue in words, naming the field by its path (or as `name` when given, e.g. "it"). */
export function issueWords(i: z.core.$ZodIssue, name?: string): string {
  const field = name ?? (i.path.join(".") || "the body");
  const x = i as unknown as {
    origin?: string;
    maximum?: number | bigint;
    minimum?: number | bigint;
    inclusive?: boolean;
    expected?: string;
    values?: unknown[];
    keys?: string[];
  };
  const unit = x.origin === "string" ? " characters" : x.origin === "array" ? " entries" : "";
  switch (i.code) {
    case "too_big":
      return x.origin === "string" || x.origin === "array"
        ? `${field} is longer than ${x.maximum}${unit}`
        : `${field} is more than ${x.maximum}`;
    case "too_small":
      if (x.origin === "string" && Number(x.minimum) === 1) return `${field} is empty`;
      if (x.origin === "number" && x.inclusive === false) return `${field} must be more than ${x.minimum}`;
      return x.origin === "string" || x.origin === "array"
        ? `${field} is shorter than ${x.minimum}${unit}`
        : `${field} is less than ${x.minimum}`;
    case "invalid_type":
      return `${field} must be ${TYPE_WORDS[x.expected ?? ""] ?? x.expected}`;
    case "invalid_value":
      return `${field} must be one of: ${(x.values ?? []).map((v) => JSON.stringify(v)).join(", ")}`;
    case "unrecognized_keys":
      return `unknown field${(x.keys?.length ?? 0) > 1 ? "s" : ""}: ${(x.keys ?? []).join(", ")}`;
    default:
      return `${field} is not valid`;
  }
}
