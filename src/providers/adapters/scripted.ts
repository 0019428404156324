import type { ProviderAdapter } from "./types.ts";
import { ownProgram } from "../../core/package-paths.ts";

// Our deterministic test agent (contract §4.1), shipped in this package. Providers listed in
// the test-only OAR_FAKE_PROVIDERS run it too (see catalog.ts).
// From dist/ (no compiler in the worker) when the relay runs from it: core/package-paths.ts.
const SCRIPTED_AGENT = "src/providers/scripted/agent.ts";

export const scripted: ProviderAdapter = {
  id: "scripted",
  secretSettings: [],
  secretEnv: [],
  launch: () => ownProgram(SCRIPTED_AGENT),
  signIn: "",
};
