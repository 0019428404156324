import { fileURLToPath } from "node:url";
import type { ProviderAdapter } from "./types.ts";

// Our deterministic test agent (contract §4.1), shipped in this package. Providers listed in
// the test-only OAR_FAKE_PROVIDERS run it too (see catalog.ts).
const SCRIPTED_AGENT = fileURLToPath(new URL("../scripted/agent.ts", import.meta.url));
const TSX = import.meta.resolve("tsx");

export const scripted: ProviderAdapter = {
  id: "scripted",
  secretSettings: [],
  secretEnv: [],
  launch: () => ({ command: process.execPath, args: ["--import", TSX, SCRIPTED_AGENT] }),
  signIn: "",
};
