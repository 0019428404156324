// Claude Cloud (contract §9.2): a session takes repo and branch instead of a folder; the relay
// clones the branch (made from the default branch when missing) into <data>/workspaces/<id>,
// the agent works there, its commits are pushed back on the owner's request (or by the agent's
// own `git push`), and deleting the session removes the workspace. The agent is the scripted
// one (OAR_FAKE_PROVIDERS=claude-cloud): the CLI cannot run here, the git side is all real,
// against local bare repositories.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { TestRelay, type McpSession } from "./helpers/relay-process.ts";
import { agentCreate } from "./helpers/core-helpers.ts";
import { claudeCloud } from "../src/providers/adapters/claude-cloud.ts";
import { allAdapters } from "../src/providers/adapters/index.ts";
import { workerEnv } from "../src/providers/adapters/env.ts";

// Not execFileSync: a loaded machine can take seconds for a few git runs, and a test blocked
// that long misses the relay closing an idle keep-alive connection, then sends its next
// request on it ("other side closed").
const git = promisify(execFile);
const gitIn = async (cwd: string, ...args: string[]) =>
  (await git("git", args, { cwd, encoding: "utf8" })).stdout.trim();

/** A bare repository with `main` (README) and `feature` (README + feature.txt). */
async function makeRepo(): Promise<{ bare: string; seed: string }> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "oar-cloud-repo-")));
  const bare = join(root, "origin.git");
  const seed = join(root, "seed");
  await gitIn(root, "init", "-q", "--bare", "-b", "main", bare);
  await gitIn(root, "clone", "-q", bare, seed);
  // The test's own commits name their author: a fresh machine (and CI) has no git identity.
  await gitIn(seed, "config", "user.name", "seed");
  await gitIn(seed, "config", "user.email", "seed@example.invalid");
  writeFileSync(join(seed, "README.md"), "# sample\n");
  await gitIn(seed, "add", "README.md");
  await gitIn(seed, "commit", "-qm", "first");
  await gitIn(seed, "push", "-q", "origin", "main");
  await gitIn(seed, "checkout", "-qb", "feature");
  writeFileSync(join(seed, "feature.txt"), "feature\n");
  await gitIn(seed, "add", "feature.txt");
  await gitIn(seed, "commit", "-qm", "feature work");
  await gitIn(seed, "push", "-q", "origin", "feature");
  return { bare, seed };
}

const subjectOf = (bare: string, ref: string) => gitIn(bare, "log", "-1", "--format=%s", ref);

/** git as on a fresh machine whatever this one has: no identity configured, and none guessed
 * from the host name (useConfigOnly). */
function noGitIdentity(): Record<string, string | undefined> {
  const global = join(mkdtempSync(join(tmpdir(), "oar-gitconfig-")), "config");
  writeFileSync(global, "[user]\n\tuseConfigOnly = true\n");
  return {
    GIT_CONFIG_GLOBAL: global,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_NAME: undefined,
    GIT_AUTHOR_EMAIL: undefined,
    GIT_COMMITTER_NAME: undefined,
    GIT_COMMITTER_EMAIL: undefined,
    EMAIL: undefined,
  };
}

let relay: TestRelay;
before(async () => {
  process.env.OAR_FAKE_PROVIDERS = "claude-cloud";
  relay = await TestRelay.start({ settings: { claudeCloudToken: "cloud-token-xyz" }, env: noGitIdentity() });
  delete process.env.OAR_FAKE_PROVIDERS;
});
after(() => relay.stop());

const workspaces = () => join(relay.dataDir, "workspaces");
const create = (body: Record<string, unknown>) =>
  relay.api("POST", "/api/sessions", { provider: "claude-cloud", title: "cloud", ...body });
const push = (id: string) => relay.api("POST", `/api/sessions/${id}/push`);
/** Runs a shell command as the agent's background task in the session's workspace, to its end. */
async function agentShell(id: string, name: string, shell: string): Promise<void> {
  await relay.say(id, `/task ${name} ${shell}`);
  const t = await relay.waitFor(async () =>
    (await relay.session(id)).tasks.find((x: any) => x.description === name && x.status !== "running"),
  );
  assert.equal(t.status, "completed", JSON.stringify(t));
}

test("an existing branch is cloned into the workspace; the agent's commit is pushed back by the owner", async () => {
  const { bare } = await makeRepo();
  const r = await create({ repo: bare, branch: "feature" });
  assert.equal(r.status, 201, JSON.stringify(r.json));
  const s = r.json;
  assert.equal(s.cwd, join(workspaces(), s.id));
  assert.equal(s.repo, bare);
  assert.equal(s.branch, "feature");
  assert.equal(await gitIn(s.cwd, "rev-parse", "--abbrev-ref", "HEAD"), "feature");
  assert.equal(readFileSync(join(s.cwd, "feature.txt"), "utf8"), "feature\n");

  // Nothing new yet.
  let p = await push(s.id);
  assert.deepEqual(p.json, { ok: true, pushed: false, branch: "feature", commits: 0, repo: bare, uncommitted: 0 });

  // The agent (running in the workspace) commits; the commit stays there until pushed.
  await agentShell(s.id, "commit", "echo hello > hello.txt && git add hello.txt && git commit -qm 'agent change'");
  assert.equal(await subjectOf(bare, "feature"), "feature work");
  p = await push(s.id);
  assert.equal(p.status, 200, JSON.stringify(p.json));
  assert.deepEqual(p.json, { ok: true, pushed: true, branch: "feature", commits: 1, repo: bare, uncommitted: 0 });
  assert.equal(await subjectOf(bare, "feature"), "agent change");
  // No git identity on the machine: the workspace commits as the relay (contract §10.1).
  assert.equal(await gitIn(bare, "log", "-1", "--format=%an <%ae>", "feature"), "OAR relay desk <oar@localhost>");
  assert.equal(await subjectOf(bare, "main"), "first", "only the session's branch is pushed");
});

test("a missing branch is made from the default branch; the agent may push it itself", async () => {
  const { bare } = await makeRepo();
  const s = (await create({ repo: bare, branch: "oar/new-work" })).json;
  assert.equal(await gitIn(s.cwd, "rev-parse", "--abbrev-ref", "HEAD"), "oar/new-work");
  assert.equal(await gitIn(s.cwd, "rev-parse", "HEAD"), await gitIn(bare, "rev-parse", "main"));
  await assert.rejects(
    gitIn(bare, "rev-parse", "--verify", "refs/heads/oar/new-work"),
    "not in the repository until pushed",
  );

  await agentShell(
    s.id,
    "commit-and-push",
    "echo x > new.txt && git add new.txt && git commit -qm 'new work' && git push -q",
  );
  assert.equal(await subjectOf(bare, "oar/new-work"), "new work");
  assert.equal(await gitIn(bare, "rev-parse", "oar/new-work~1"), await gitIn(bare, "rev-parse", "main"));
  // The owner's push then finds nothing left to push.
  assert.deepEqual((await push(s.id)).json, {
    ok: true,
    pushed: false,
    branch: "oar/new-work",
    commits: 0,
    repo: bare,
    uncommitted: 0,
  });

  // Without a branch: the repository's default branch.
  const d = (await create({ repo: bare })).json;
  assert.equal(d.branch, "main");
  assert.equal(await gitIn(d.cwd, "rev-parse", "--abbrev-ref", "HEAD"), "main");
});

test("a new branch made by the relay is pushed by the owner too (the test commits in the workspace)", async () => {
  const { bare } = await makeRepo();
  const s = (await create({ repo: bare, branch: "topic" })).json;
  writeFileSync(join(s.cwd, "a.txt"), "a\n");
  await gitIn(s.cwd, "add", "a.txt");
  await gitIn(s.cwd, "commit", "-qm", "one");
  writeFileSync(join(s.cwd, "b.txt"), "b\n");
  await gitIn(s.cwd, "add", "b.txt");
  await gitIn(s.cwd, "commit", "-qm", "two");
  const p = await push(s.id);
  assert.deepEqual(p.json, { ok: true, pushed: true, branch: "topic", commits: 2, repo: bare, uncommitted: 0 });
  assert.equal(await subjectOf(bare, "topic"), "two");
});

test("a push the repository rejects is refused in words; nothing was pushed", async () => {
  const { bare, seed } = await makeRepo();
  const s = (await create({ repo: bare, branch: "feature" })).json;
  // Someone else pushes to the branch meanwhile.
  writeFileSync(join(seed, "other.txt"), "other\n");
  await gitIn(seed, "add", "other.txt");
  await gitIn(seed, "commit", "-qm", "someone else");
  await gitIn(seed, "push", "-q", "origin", "feature");
  writeFileSync(join(s.cwd, "mine.txt"), "mine\n");
  await gitIn(s.cwd, "add", "mine.txt");
  await gitIn(s.cwd, "commit", "-qm", "mine");
  const p = await push(s.id);
  assert.equal(p.status, 400);
  assert.equal(p.json.code, "REMOTE_RELAY_INVALID_INPUT");
  assert.match(
    p.json.error,
    /^git push of branch "feature" to .*origin\.git failed: .*rejected.* ask the agent to pull them \(git pull --rebase\) and push again\. Nothing was pushed\.$/,
  );
  assert.equal(await subjectOf(bare, "feature"), "someone else");

  const plain = await relay.createSession({ title: "plain" });
  const q = await push(plain);
  assert.equal(q.json.code, "REMOTE_RELAY_INVALID_INPUT");
  assert.match(q.json.error, /is not a Claude Cloud session/);
  assert.equal((await push("ses_nope")).json.code, "REMOTE_RELAY_NOT_FOUND");
});

test("deleting the session removes its workspace; a compacted conversation keeps it until its last session goes", async () => {
  const { bare } = await makeRepo();
  const a = (await create({ repo: bare, branch: "feature" })).json;
  assert.ok(existsSync(a.cwd));
  await relay.api("DELETE", `/api/sessions/${a.id}`);
  await relay.waitFor(() => !existsSync(a.cwd));

  const b = (await create({ repo: bare, branch: "feature" })).json;
  await relay.say(b.id, "hello");
  const next = (await relay.api("POST", `/api/sessions/${b.id}/compact`)).json;
  assert.equal(next.cwd, b.cwd, "the continuation works in the same clone");
  await relay.api("DELETE", `/api/sessions/${b.id}`);
  await relay.waitFor(async () => (await relay.session(next.id)).state === "idle");
  assert.ok(existsSync(b.cwd), "still used by the continuation");
  await relay.api("DELETE", `/api/sessions/${next.id}`);
  await relay.waitFor(() => !existsSync(b.cwd));
});

test("refusals: cwd, repositories that cannot be cloned, bad addresses and branches, repo on other providers — nothing created, nothing left behind", async () => {
  const { bare } = await makeRepo();
  const before = (await relay.api("GET", "/api/sessions")).json.sessions.length;
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ repo: bare, branch: "feature", cwd: tmpdir() }, /^Claude Cloud sessions take repo and branch instead of cwd/],
    [
      {},
      /^Claude Cloud sessions take repo \(a git URL or a path on this relay\) and branch instead of a folder\. Nothing was created\.$/,
    ],
    [
      { repo: join(tmpdir(), "no-such-repo-here") },
      /^Repository ".*no-such-repo-here" cannot be cloned: fatal: .*does not appear to be a git repository.* Nothing was created\.$/,
    ],
    [{ repo: "-uhack" }, /is not a git repository address/],
    [{ repo: "ext::sh -c touch% /tmp/pwned" }, /is not a git repository address/],
    [
      { repo: "relative/path/to/repo" },
      /is neither a git URL, an absolute path on this relay nor a GitHub "owner\/name"/,
    ],
    [
      { repo: bare, branch: "bad..name" },
      /^branch "bad\.\.name" is not a valid git branch name\. Nothing was created\.$/,
    ],
    [
      { repo: "https://someone:s3cret-pass@127.0.0.1:1/x.git" },
      /^Repository "https:\/\/someone:\*\*\*\*@127\.0\.0\.1:1\/x\.git" cannot be cloned: /,
    ],
  ];
  for (const [body, re] of cases) {
    const r = await create(body);
    assert.equal(r.status, 400, JSON.stringify(body));
    assert.equal(r.json.code, "REMOTE_RELAY_INVALID_INPUT", JSON.stringify(r.json));
    assert.match(r.json.error, re);
    assert.ok(!r.json.error.includes("s3cret-pass"), "credentials never shown");
  }
  const other = await relay.api("POST", "/api/sessions", { provider: "scripted", repo: bare, branch: "main" });
  assert.equal(other.json.code, "REMOTE_RELAY_INVALID_INPUT");
  assert.match(
    other.json.error,
    /^repo is for Claude Cloud sessions; Scripted works in a folder \(cwd\), on a branch of its repository with branch\. Nothing was created\.$/,
  );
  assert.equal((await relay.api("GET", "/api/sessions")).json.sessions.length, before);
  assert.deepEqual(
    existsSync(workspaces()) ? readdirSync(workspaces()).filter((f) => f.startsWith(".clone-")) : [],
    [],
  );

  const s = (await create({ repo: bare, branch: "main" })).json;
  const patch = await relay.api("PATCH", `/api/sessions/${s.id}`, { cwd: tmpdir() });
  assert.equal(patch.json.code, "REMOTE_RELAY_INVALID_INPUT");
  assert.match(patch.json.error, /cwd cannot change\. Nothing was changed\.$/);
});

test("relay_tool create_session: repo and branch instead of cwd, checked before any card; the clone follows the card", async () => {
  const { bare } = await makeRepo();
  const boss = await relay.createSession({ title: "cloud boss" });
  const mcp: McpSession = await relay.mcp(boss);
  // No turn runs in boss: a card would answer NO_ACTIVE_TURN, so these prove the checks come first.
  let r = await mcp.call({
    action: "create_session",
    relay: "this",
    provider: "claude-cloud",
    repo: bare,
    branch: "main",
    cwd: tmpdir(),
    text: "hi",
  });
  assert.equal(r.code, "REMOTE_RELAY_INVALID_INPUT");
  assert.match(r.error, /take repo and branch instead of cwd/);
  r = await mcp.call({
    action: "create_session",
    relay: "this",
    provider: "claude-cloud",
    repo: "/nowhere/repo.git",
    text: "hi",
  });
  assert.equal(r.code, "REMOTE_RELAY_INVALID_INPUT");
  assert.match(r.error, /^Repository "\/nowhere\/repo\.git" cannot be cloned: /);
  r = await mcp.call({ action: "create_session", relay: "this", provider: "scripted", repo: bare, text: "hi" });
  assert.equal(r.code, "REMOTE_RELAY_INVALID_INPUT");

  const made = await agentCreate(relay, boss, {
    provider: "claude-cloud",
    repo: bare,
    branch: "agent-branch",
    text: "hi",
    wait_seconds: 0,
  });
  assert.equal(made.repo, bare);
  assert.equal(made.branch, "agent-branch");
  const s = await relay.session(made.session);
  assert.equal(s.cwd, join(workspaces(), made.session));
  assert.equal(await gitIn(s.cwd, "rev-parse", "--abbrev-ref", "HEAD"), "agent-branch");
});

test("web page: the Push button in a Claude Cloud session's title bar pushes its branch; New session takes repository and branch", async () => {
  const { bare } = await makeRepo();
  const s = (await create({ repo: bare, branch: "feature", title: "cloud ui" })).json;
  writeFileSync(join(s.cwd, "ui.txt"), "ui\n");
  await gitIn(s.cwd, "add", "ui.txt");
  await gitIn(s.cwd, "commit", "-qm", "from the page");
  // Left uncommitted: push sends commits only, and the button says what stayed behind.
  writeFileSync(join(s.cwd, "draft.txt"), "draft\n");
  const plain = await relay.createSession({ title: "plain ui" });
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  try {
    const page = await browser.newPage();
    page.setDefaultTimeout(60_000);
    await page.goto(`${relay.url}/#token=${relay.token}`);
    await page.goto(`${relay.url}/#session=${plain}`);
    await page.getByRole("main").getByRole("heading", { name: "plain ui", exact: true }).waitFor();
    assert.equal(
      await page.getByRole("button", { name: "Push", exact: true }).count(),
      0,
      "only cloud sessions have it",
    );
    await page.goto(`${relay.url}/#session=${s.id}`);
    await page.getByRole("main").getByRole("heading", { name: "cloud ui", exact: true }).waitFor();
    await page.getByRole("button", { name: "Push", exact: true }).click();
    await page.getByRole("button", { name: "Pushed 1 commit (1 changed file not committed)" }).waitFor();
    assert.match(
      (await page.getByRole("button", { name: /^Pushed/ }).getAttribute("title")) ?? "",
      /ask the agent to commit them/,
    );
    assert.equal(await subjectOf(bare, "feature"), "from the page");

    // New session: a Claude Cloud session takes a repository and a branch instead of a folder.
    await page.getByRole("link", { name: "New session" }).click();
    await page.getByLabel("Provider").selectOption("claude-cloud");
    assert.equal(await page.getByLabel("Folder", { exact: true }).isVisible(), false);
    await page.getByLabel("Title").fill("cloud from form");
    await page.getByLabel("Repository", { exact: true }).fill(bare);
    await page.getByLabel("Branch", { exact: true }).fill("form-branch");
    await page.getByRole("button", { name: "Create session" }).click();
    await page.getByRole("main").getByRole("heading", { name: "cloud from form", exact: true }).waitFor();
    const made = (await relay.api("GET", "/api/sessions")).json.sessions.find(
      (x: any) => x.title === "cloud from form",
    );
    assert.equal(made.branch, "form-branch");
    assert.equal(await gitIn(made.cwd, "rev-parse", "--abbrev-ref", "HEAD"), "form-branch");
  } finally {
    await browser.close();
  }
});

test("a restart keeps workspaces and removes staging clones a stopped relay left behind", async () => {
  const { bare } = await makeRepo();
  const s = (await create({ repo: bare, branch: "main" })).json;
  const leftover = join(workspaces(), ".clone-leftover");
  mkdirSync(join(leftover, "sub"), { recursive: true });
  process.env.OAR_FAKE_PROVIDERS = "claude-cloud";
  try {
    await relay.restart();
  } finally {
    delete process.env.OAR_FAKE_PROVIDERS;
  }
  assert.ok(!existsSync(leftover));
  assert.ok(existsSync(join(s.cwd, "README.md")));
  assert.equal((await relay.session(s.id)).cwd, s.cwd);
});

test("launch: the Claude adapter with the cloud token as Claude Code's OAuth token, and no other Anthropic credential", () => {
  const settings = { claudeCloudToken: "tok-123", claudeApiKey: "sk-ant-other" };
  const spec = claudeCloud.launch({ settings, binary: "/opt/bin/claude-agent-acp", env: {} });
  assert.equal(spec?.command, "/opt/bin/claude-agent-acp");
  assert.equal(spec?.env?.CLAUDE_CODE_OAUTH_TOKEN, "tok-123");
  assert.equal(
    claudeCloud.launch({ settings: {}, binary: "/opt/bin/claude-agent-acp", env: {} }),
    null,
    "no token, no launch",
  );
  assert.equal(claudeCloud.launch({ settings, binary: null, env: {} }), null, "not installed, no launch");
  const env = workerEnv(claudeCloud, allAdapters(), settings, {
    PATH: "/bin",
    ANTHROPIC_API_KEY: "sk-ant-env",
    ANTHROPIC_AUTH_TOKEN: "t",
    KEEP: "sk-ant-other",
  });
  assert.deepEqual(env, { PATH: "/bin" });
});
