import { z } from "zod";
import { PROVIDER_IDS } from "./provider-ids.ts";

// Setting `customAgents` (contract §10.2): any ACP agent the owner names by its command. Its
// `env` values are secrets (the owner API shows `****`, a PATCH with `****` keeps the value).

export const CUSTOM_AGENT_ID = /^[a-z][a-z0-9-]{1,30}$/;

export const CustomAgent = z.object({
  id: z
    .string()
    .regex(CUSTOM_AGENT_ID, "an id is 2 to 31 lowercase letters, digits or '-', starting with a letter")
    .refine((id) => !(PROVIDER_IDS as readonly string[]).includes(id), "that id is a built-in provider's"),
  name: z.string().trim().min(1).max(80),
  command: z.string().trim().min(1).max(1024),
  args: z.array(z.string().max(4096)).max(64).default([]),
  env: z
    .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name"), z.string().max(8192))
    .default({})
    .refine((e) => Object.keys(e).length <= 64, "at most 64 variables"),
});
export type CustomAgent = z.output<typeof CustomAgent>;

export const CustomAgents = z
  .array(CustomAgent)
  .max(32)
  .refine((list) => new Set(list.map((a) => a.id)).size === list.length, "each custom agent needs its own id");
