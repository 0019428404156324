// Real agent CLIs, cold start → first reply token (issue 9, "How it is shown"). For each
// pinned CLI (scripts/install-agents.sh), 5 times: start the process the way a relay worker
// is started (its own HOME, the shared XDG cache, the offline set-up against a local fake
// model server), `initialize`, `session/new` with a relay session's MCP entry, Grok's wait for
// its MCP connection (the relay waits for it too), then `session/prompt` — until the first
// agent_message_chunk. The fake model answers at once, so the figure is the CLI's own cost.
// Prints p50 per phase; skips a CLI that is not installed. Bounded: 25 min in all.
// The third-round CLIs (contract §10.2) each against the server of their own wire API: Gemini
// (generateContent SSE), Codex (Responses API), opencode and Qwen Code (chat completions).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TestRelay } from "../test/helpers/relay-process.ts";
import { AcpDrive } from "../test/helpers/acp-drive.ts";
import { FakeAnthropic } from "../test/helpers/fake-anthropic.ts";
import { FakeOpenAI } from "../test/helpers/fake-openai.ts";
import { FakeGemini } from "../test/helpers/fake-gemini.ts";
import { FakeResponses } from "../test/helpers/fake-responses.ts";
import { OPENCODE_OFFLINE, codexConfig, opencodeConfig, qwenSetup } from "../test/helpers/cli-offline.ts";
import { AGENTS_CACHE, agentPath, binPath, missingCli, type AgentCli } from "../test/helpers/agent-clis.ts";
import { loadLine, machineLine, summarize, table, type Row } from "./lib/stats.ts";

const RUNS = 5;
const DEADLINE_MS = 1_500_000;
const started = Date.now();
const log = (s: string) => console.log(`[agents ${((Date.now() - started) / 1000).toFixed(1).padStart(5)} s] ${s}`);
setTimeout(() => {
  console.error("agents-cold-start: over 25 minutes, stopping; what was measured:");
  report();
  process.exit(1);
}, DEADLINE_MS).unref();

const anthropic = await FakeAnthropic.start({
  apiKey: "bench-key",
  script: () => ({ text: "Hello from the fake model." }),
});
const openai = await FakeOpenAI.start({
  apiKey: "bench-key",
  models: ["bench-model"],
  script: () => ({ text: "Hello from the fake model." }),
});
const gemini = await FakeGemini.start({ apiKey: "bench-key", script: () => ({ text: "Hello from the fake model." }) });
const responses = await FakeResponses.start({
  apiKey: "bench-key",
  script: () => ({ text: "Hello from the fake model." }),
});
const relay = await TestRelay.start({ name: "bench" });
const target = await relay.createSession({ title: "bench" });
const mcp = (await relay.api("GET", `/api/sessions/${target}/mcp`)).json;

interface Launch {
  args: string[];
  env: Record<string, string>;
  waitMcp?: string;
  /** Writes its configuration into the run's HOME; returns more environment. */
  prepare?(home: string): Record<string, string>;
}

const launches: Record<AgentCli["provider"], Launch> = {
  claude: { args: [], env: { ANTHROPIC_BASE_URL: anthropic.baseUrl, ANTHROPIC_API_KEY: "bench-key", IS_SANDBOX: "1" } },
  copilot: {
    args: ["--acp", "--stdio"],
    env: {
      COPILOT_OFFLINE: "true",
      COPILOT_PROVIDER_BASE_URL: openai.baseUrl,
      COPILOT_PROVIDER_API_KEY: "bench-key",
      COPILOT_MODEL: "bench-model",
    },
  },
  grok: {
    args: ["agent", "--xai-api-base-url", openai.baseUrl, "stdio"],
    env: { XAI_API_KEY: "bench-key" },
    waitMcp: "_x.ai/mcp_initialized",
  },
  // As the relay starts them (adapters/*.ts): Gemini trusted and not relaunching itself.
  gemini: {
    args: ["--acp"],
    env: {
      GEMINI_API_KEY: "bench-key",
      GOOGLE_GEMINI_BASE_URL: gemini.baseUrl,
      GEMINI_CLI_TRUST_WORKSPACE: "true",
      GEMINI_CLI_NO_RELAUNCH: "true",
    },
  },
  codex: {
    args: [],
    env: { OAR_TEST_MODEL_KEY: "bench-key" },
    prepare: (home) => {
      codexConfig(home, responses.baseUrl);
      return {};
    },
  },
  opencode: {
    args: ["acp"],
    env: { ...OPENCODE_OFFLINE, OPENCODE_CONFIG_CONTENT: opencodeConfig(openai.baseUrl, "bench-key") },
  },
  qwen: { args: ["--acp"], env: {}, prepare: (home) => qwenSetup(home, openai.baseUrl, "bench-key") },
};

interface Phases {
  initialize: number;
  sessionNew: number;
  ready: number;
  firstToken: number;
}

async function once(provider: AgentCli["provider"]): Promise<Phases> {
  const home = mkdtempSync(join(tmpdir(), "oar-bench-home-"));
  const cwd = mkdtempSync(join(tmpdir(), "oar-bench-cwd-"));
  const l = launches[provider];
  const t0 = Date.now();
  const extra = l.prepare?.(home) ?? {};
  const d = new AcpDrive(binPath(provider), l.args, {
    cwd,
    env: {
      PATH: agentPath([provider]),
      HOME: home,
      XDG_CACHE_HOME: join(AGENTS_CACHE, "xdg-cache"),
      ...l.env,
      ...extra,
    },
  });
  try {
    await d.initialize();
    const tInit = Date.now();
    await d.newSession(cwd, mcp);
    const tNew = Date.now();
    if (l.waitMcp) await d.waitFor((s) => s.method === l.waitMcp, 30_000);
    const tReady = Date.now();
    const prompt = d.prompt("Say hello.");
    const first = await d.waitFor(
      (s) => s.method === "session/update" && s.params.update.sessionUpdate === "agent_message_chunk",
      60_000,
    );
    await prompt;
    return { initialize: tInit - t0, sessionNew: tNew - t0, ready: tReady - t0, firstToken: first.at - t0 };
  } finally {
    await d.close();
    // Claude Code's own child may still be writing its files for a moment after the adapter ends.
    for (const dir of [home, cwd]) {
      try {
        rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
      } catch {}
    }
  }
}

const rows: Row[] = [];
const notes: string[] = [];
try {
  const only = process.argv.slice(2).filter((a) => !a.startsWith("-"));
  for (const provider of ["claude", "copilot", "grok", "gemini", "codex", "opencode", "qwen"] as const) {
    if (only.length && !only.includes(provider)) continue;
    const missing = missingCli(provider);
    if (missing) {
      notes.push(`${provider}: skipped (${missing})`);
      continue;
    }
    // One unmeasured start first: it fills the shared caches (Copilot unpacks ~235 MB once).
    await once(provider);
    const runs: Phases[] = [];
    for (let i = 0; i < RUNS; i++) {
      runs.push(await once(provider));
      log(`${provider} run ${i + 1}: first token after ${runs.at(-1)!.firstToken} ms`);
    }
    rows.push({
      metric: `${provider}: spawn → first reply token`,
      unit: "ms",
      summary: summarize(runs.map((r) => r.firstToken)),
    });
    rows.push({
      metric: `${provider}:   of which spawn → initialize answered`,
      unit: "ms",
      summary: summarize(runs.map((r) => r.initialize)),
    });
    rows.push({
      metric: `${provider}:   of which spawn → session/new answered${launches[provider].waitMcp ? " → MCP connected" : ""}`,
      unit: "ms",
      summary: summarize(runs.map((r) => r.ready)),
    });
  }
} finally {
  await relay.stop();
  await anthropic.close();
  await openai.close();
  await gemini.close();
  await responses.close();
}

report();

function report(): void {
  console.log(`\n${machineLine()}\n${loadLine()} (at the end)\n`);
  console.log(table(rows));
  for (const n of notes) console.log(n);
}
