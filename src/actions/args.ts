import { z } from "zod";
import { Effort, Mode } from "../sessions/types.ts";

// Argument schemas shared by several actions, each with the description tools/list shows.
export const relayArg = z
  .string()
  .describe(
    "Relay to act on: \"this\" (the relay you run on), this relay's name, or a paired relay's name or host as list_relays shows.",
  );
export const sessionArg = z.string().min(1).describe("Session id (from list_sessions).");
export const textArg = z
  .string()
  .min(1)
  .max(200_000)
  .describe("The prompt. The receiving agent knows nothing of your conversation: make it stand alone.");
export const waitSecondsArg = z
  .number()
  .min(0)
  .describe(
    "How long to wait for the reply, in seconds; 0 returns at once. Left out: the longest wait this relay allows (Longest wait per tool call).",
  );
export const modeArg = Mode.describe('Relay mode for the turn: "agent", "ask" or "plan". Left out: your own mode.');
export const modelArg = z.string().min(1).describe("Model id, as relay_info lists it for the provider.");
export const effortArg = Effort.describe(
  'Reasoning effort: "low", "medium", "high", or "max" where the provider has it.',
);
export const messageIdArg = z.string().min(1).describe("message_id from a send or create_session result.");
