// Claude Cloud for real (contract §9.2): a `claude-cloud` session runs the pinned
// claude-agent-acp (Claude Code inside) in the relay's clone of a local bare repository,
// signed in with the owner's cloud token (the claudeCloudToken setting, given to the worker
// as CLAUDE_CODE_OAUTH_TOKEN), against a local Anthropic Messages server
// (ANTHROPIC_BASE_URL in the relay's environment). The fake model makes Claude Code write a
// file with its Write tool and commit it with its Bash tool; the owner pushes (the relay's
// push only pushes commits, it never commits for the agent); deleting the session removes
// the clone. A second turn Edits the file without committing: push then sends nothing and
// counts the file as uncommitted.
//
// Offline, Claude Code with CLAUDE_CODE_OAUTH_TOKEN + ANTHROPIC_BASE_URL (checked by hand on
// claude-agent-acp 0.101.0 / Claude Code 2.1.318): it needs no OAuth or profile endpoint. It
// sends `HEAD /api/hello` (a reachability check; the fake's 404 is fine) and then only
// `POST /v1/messages`, each with `Authorization: Bearer <token>` and the `oauth-2025-04-20`
// beta, never an x-api-key. `claude auth status --json` says `{ loggedIn: true, authMethod:
// "oauth_token" }` — but the adapter maps that (no subscription, no key source) to
// `_auth/status_update { kind: "none", label: "Not logged in" }`, which is why the
// claude-cloud adapter does not read that notification (see claude-cloud.ts).
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { TestRelay } from "./helpers/relay-process.ts";
import { FakeAnthropic, lastUserText, toolResults, type MessagesCall } from "./helpers/fake-anthropic.ts";
import { agentRelayEnv, missingCli } from "./helpers/agent-clis.ts";
import { TURN_MS, checkedProvider, say } from "./helpers/agents-e2e.ts";
import { claude } from "../src/providers/adapters/claude.ts";
import { claudeCloud } from "../src/providers/adapters/claude-cloud.ts";

const skip = missingCli("claude");
const TOKEN = "sk-ant-oat01-cloud-token-for-tests";
// The relay's own Anthropic credentials: they must never reach a claude-cloud worker.
const RELAY_KEY = "sk-ant-api-relay-own-key";
const RELAY_AUTH = "relay-own-auth-token";
const GREETING = "Hello from Claude Cloud\n";

const gitIn = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();

/** A bare repository with one commit on `main`. */
function makeRepo(): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "oar-cloud-e2e-")));
  const bare = join(root, "origin.git");
  const seed = join(root, "seed");
  execFileSync("git", ["init", "-q", "--bare", "-b", "main", bare]);
  execFileSync("git", ["clone", "-q", bare, seed], { stdio: "ignore" });
  writeFileSync(join(seed, "README.md"), "# sample\n");
  gitIn(seed, "add", "README.md");
  gitIn(seed, "-c", "user.name=seed", "-c", "user.email=seed@example.invalid", "commit", "-qm", "first");
  gitIn(seed, "push", "-q", "origin", "main");
  return bare;
}

/** The workspace the scripted model writes into (known once the session exists). */
let workspace = "";

/**
 * The model. "…greeting file and commit it": Write greeting.txt in the workspace, commit it
 * with Bash, report. "Change the greeting…": Read it, Edit it (no commit), report.
 */
function cloudModel(call: MessagesCall) {
  const file = join(workspace, "greeting.txt");
  const last = toolResults(call).at(-1);
  if (!last) {
    const asked = lastUserText(call);
    if (/greeting file and commit/i.test(asked))
      return { toolUses: [{ name: "Write", input: { file_path: file, content: GREETING } }] };
    if (/change the greeting/i.test(asked)) return { toolUses: [{ name: "Read", input: { file_path: file } }] };
    return { text: "Nothing to do." };
  }
  if (last.isError) return { text: `Failed: ${last.name} said ${last.text.slice(0, 300)}` };
  if (last.name === "Write") {
    return {
      toolUses: [
        {
          name: "Bash",
          input: {
            command: "git add greeting.txt && git commit -q -m 'Add greeting' && git log -1 --format=%s && pwd",
            description: "Commit the greeting",
          },
        },
      ],
    };
  }
  if (last.name === "Read")
    return {
      toolUses: [
        { name: "Edit", input: { file_path: file, old_string: "Hello from", new_string: "Hello again from" } },
      ],
    };
  return { text: `Done. ${last.name} said: ${last.text.slice(0, 300)}` };
}

let relay: TestRelay;
let fake: FakeAnthropic;
let bare: string;

before(async () => {
  if (skip) return;
  bare = makeRepo();
  fake = await FakeAnthropic.start({ apiKey: TOKEN, script: cloudModel });
  relay = await TestRelay.start({
    env: agentRelayEnv(["claude"], {
      ANTHROPIC_BASE_URL: fake.baseUrl,
      ANTHROPIC_API_KEY: RELAY_KEY,
      ANTHROPIC_AUTH_TOKEN: RELAY_AUTH,
    }),
    settings: { claudeCloudToken: TOKEN },
  });
});
after(async () => {
  await relay?.stop();
  await fake?.close();
  if (bare) rmSync(dirname(bare), { recursive: true, force: true });
});

test("with the cloud token set, the probe finds Claude Cloud available (Claude Code's OAuth-token login counts as signed in)", {
  skip,
  timeout: TURN_MS,
}, async () => {
  const p = await checkedProvider(relay, "claude-cloud");
  assert.equal(p.available, true, p.reason);
});

// What Claude Code's adapter pushes for a CLAUDE_CODE_OAUTH_TOKEN login (seen above): a
// "Not logged in" that must not make Claude Cloud unavailable (the probe raced it against
// its own `claude auth status`, which says loggedIn) — while the plain Claude provider,
// signed in some other way, still reads it as signed out.
test('the adapter\'s "Not logged in" notice for an OAuth-token login does not count as signed out for Claude Cloud', () => {
  const notice = { authStatus: { kind: "none", label: "Not logged in" } };
  assert.equal(claude.signedOut!("_auth/status_update", notice), true);
  assert.equal(claudeCloud.signedOut!("_auth/status_update", notice), undefined);
  assert.equal(
    claudeCloud.signedOut!("_auth/status_update", { authStatus: { kind: "account", label: "Claude Max" } }),
    false,
  );
  // The CLI's own status check, which the probe asks, tells the token login as signed in.
  assert.equal(
    claudeCloud.signInCheck!.signedIn(
      JSON.stringify({ loggedIn: true, authMethod: "oauth_token", apiProvider: "firstParty" }),
    ),
    true,
  );
});

let session: any;

test("a turn in the clone: Claude Code writes a file with Write and commits it with Bash; the reply is delivered; the branch is not pushed yet", {
  skip,
  timeout: 2 * TURN_MS,
}, async () => {
  // The relay's `claude` provider (the relay's ANTHROPIC_API_KEY) may still be probing: wait,
  // so every request the server sees from now on is the cloud session's.
  await checkedProvider(relay, "claude");
  const url = pathToFileURL(bare).href;
  session = await relay
    .api("POST", "/api/sessions", {
      provider: "claude-cloud",
      title: "Cloud worker",
      repo: url,
      branch: "feature/greeting",
    })
    .then((r) => {
      assert.equal(r.status, 201, JSON.stringify(r.json));
      return r.json;
    });
  workspace = session.cwd;
  assert.equal(session.branch, "feature/greeting");
  assert.equal(gitIn(workspace, "rev-parse", "--abbrev-ref", "HEAD"), "feature/greeting");
  fake.reset();

  const reply = await say(relay, session.id, "Write the greeting file and commit it.");
  assert.notEqual(reply.meta?.status, "error", `${reply.meta?.error} ${reply.text}`);
  assert.match(reply.text, /Done\. Bash said: Add greeting/, reply.text);

  // Claude Code ran in the clone: its Bash tool's working directory is the workspace, and
  // the model was told so.
  assert.ok(reply.text.includes(workspace), reply.text);
  const main = fake.mainCalls;
  assert.ok(main.length >= 3, main.map((c) => `${c.n} ${c.kind}`).join(", "));
  assert.ok(JSON.stringify(main[0].body).includes(workspace), "the request names the workspace");
  assert.equal(readFileSync(join(workspace, "greeting.txt"), "utf8"), GREETING);
  assert.equal(gitIn(workspace, "log", "-1", "--format=%s"), "Add greeting");
  assert.equal(gitIn(workspace, "status", "--porcelain"), "");
  // Not pushed: the repository has no such branch yet.
  assert.equal(gitIn(bare, "branch", "--list", "feature/greeting"), "");
});

test("the model server saw the cloud token as an OAuth bearer, never an API key, and none of the relay's own credentials; nor has the worker's environment", {
  skip,
}, () => {
  assert.ok(fake.requests.length > 0);
  const messages = fake.requests.filter((r) => r.path.endsWith("/v1/messages"));
  assert.ok(messages.length >= 3);
  for (const r of messages) {
    assert.equal(r.headers.authorization, `Bearer ${TOKEN}`, `${r.method} ${r.path}`);
    assert.equal(r.headers["x-api-key"], undefined, `${r.method} ${r.path} carried an x-api-key`);
    assert.match(r.headers["anthropic-beta"] ?? "", /oauth-/, "Claude Code marks OAuth requests");
  }
  for (const r of fake.requests) {
    const all = JSON.stringify(r.headers);
    assert.ok(
      !all.includes(RELAY_KEY) && !all.includes(RELAY_AUTH),
      `${r.method} ${r.path} carried a relay credential`,
    );
  }
  assert.ok(fake.calls.every((c) => c.authorized));
  // And in the worker's own environment (the adapter and the Claude Code it runs, in the clone).
  const pids = processesIn(workspace);
  assert.ok(pids.length > 0, "the worker is still running in the workspace");
  for (const pid of pids) {
    const env = environOf(pid);
    if (!env) continue; // ended meanwhile
    assert.equal(env.CLAUDE_CODE_OAUTH_TOKEN, TOKEN, `pid ${pid}`);
    assert.equal(env.ANTHROPIC_API_KEY, undefined, `pid ${pid} has ANTHROPIC_API_KEY`);
    assert.equal(env.ANTHROPIC_AUTH_TOKEN, undefined, `pid ${pid} has ANTHROPIC_AUTH_TOKEN`);
  }
});

test("push sends the agent's commit to the repository's branch (made there)", { skip, timeout: TURN_MS }, async () => {
  const p = await relay.api("POST", `/api/sessions/${session.id}/push`);
  assert.equal(p.status, 200, JSON.stringify(p.json));
  assert.deepEqual(p.json, {
    ok: true,
    pushed: true,
    branch: "feature/greeting",
    commits: 1,
    repo: pathToFileURL(bare).href,
    uncommitted: 0,
  });
  assert.equal(gitIn(bare, "log", "-1", "--format=%s", "feature/greeting"), "Add greeting");
  assert.equal(gitIn(bare, "show", "feature/greeting:greeting.txt"), GREETING.trim());
  // main is untouched.
  assert.equal(gitIn(bare, "log", "-1", "--format=%s", "main"), "first");
});

test("an Edit the agent did not commit: push sends nothing and says one file is left uncommitted", {
  skip,
  timeout: 2 * TURN_MS,
}, async () => {
  const reply = await say(relay, session.id, "Change the greeting, but do not commit.");
  assert.notEqual(reply.meta?.status, "error", `${reply.meta?.error} ${reply.text}`);
  assert.match(reply.text, /Done\. Edit said:/, reply.text);
  assert.equal(readFileSync(join(workspace, "greeting.txt"), "utf8"), "Hello again from Claude Cloud\n");
  const p = await relay.api("POST", `/api/sessions/${session.id}/push`);
  assert.deepEqual(p.json, {
    ok: true,
    pushed: false,
    branch: "feature/greeting",
    commits: 0,
    repo: pathToFileURL(bare).href,
    uncommitted: 1,
  });
  assert.equal(gitIn(bare, "show", "feature/greeting:greeting.txt"), GREETING.trim());
});

test("a refused cloud token: the turn ends with an error in words naming Claude Cloud", {
  skip,
  timeout: 2 * TURN_MS,
}, async () => {
  fake.reset();
  fake.apiKey = "another-token"; // the cloud token is now refused with Anthropic's 401
  try {
    const reply = await say(relay, session.id, "Say hello.", 120_000);
    assert.equal(reply.meta?.status, "error", reply.text);
    // What to do, as the owner does it: the token goes into the relay's settings (no "as
    // <relay user>": the token is made wherever the owner is signed in to Claude).
    assert.match(
      reply.meta.error,
      /^Claude Cloud is not signed in on relay "desk": add the token `claude setup-token` prints .* as the cloud token in Settings → Providers, then send the message again\. The turn did not run\.$/,
    );
    // Offline, a refused token is only retried (CLAUDE_CODE_MAX_RETRIES): no OAuth refresh or profile call.
    assert.ok(
      fake.requests.every((r) => r.path.endsWith("/v1/messages") || r.path === "/api/hello"),
      fake.requests.map((r) => `${r.method} ${r.path}`).join(", "),
    );
  } finally {
    fake.apiKey = TOKEN;
  }
});

test("deleting the session ends its Claude Code and removes its workspace", {
  skip,
  timeout: 2 * TURN_MS,
}, async () => {
  // A turn, so a worker runs in the workspace (the refused token may have ended the last one).
  const reply = await say(relay, session.id, "Say hello.");
  assert.notEqual(reply.meta?.status, "error", `${reply.meta?.error} ${reply.text}`);
  assert.ok(processesIn(workspace).length > 0, "Claude Code runs in the workspace");
  assert.equal((await relay.api("DELETE", `/api/sessions/${session.id}`)).status < 300, true);
  await relay.waitFor(() => !existsSync(workspace));
  await relay.waitFor(() => processesIn(workspace).length === 0);
  // The pushed branch stays in the repository.
  assert.equal(gitIn(bare, "show", "feature/greeting:greeting.txt"), GREETING.trim());
});

/** Processes whose working directory is `dir` or under it (also once it was removed). */
function processesIn(dir: string): number[] {
  const pids: number[] = [];
  for (const f of readdirSync("/proc")) {
    if (!/^\d+$/.test(f)) continue;
    try {
      const cwd = readlinkSync(`/proc/${f}/cwd`).replace(/ \(deleted\)$/, "");
      if (cwd === dir || cwd.startsWith(`${dir}/`)) pids.push(Number(f));
    } catch {
      // gone, or not ours to read
    }
  }
  return pids;
}

/** A process's environment, or null once it is gone. */
function environOf(pid: number): Record<string, string> | null {
  try {
    const pairs = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").filter(Boolean);
    return Object.fromEntries(pairs.map((p) => [p.slice(0, p.indexOf("=")), p.slice(p.indexOf("=") + 1)]));
  } catch {
    return null;
  }
}
