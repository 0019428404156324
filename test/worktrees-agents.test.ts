// Claims hold against the relay's own agent (contract §10.1): DeepSeek on OAR's openai-agent,
// driven by a local server speaking DeepSeek's wire format, writes through the relay's ACP
// file system; a model-driven write to a path another session claims is refused with the
// holder's words and writes nothing, a write elsewhere goes through and is seen as a change.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { TestRelay } from "./helpers/relay-process.ts";
import { FakeOpenAI, toolResults, type ChatCall } from "./helpers/fake-openai.ts";
import { cleanTemps, isolateGit, makeRepo } from "./helpers/git-repos.ts";

isolateGit();
let relay: TestRelay;
let fake: FakeOpenAI;

before(async () => {
  fake = await FakeOpenAI.start({ apiKey: "ds-key", models: ["deepseek-chat"] });
  relay = await TestRelay.start({ settings: { deepseekApiKey: "ds-key", deepseekBaseUrl: fake.baseUrl } });
});
after(async () => {
  await relay?.stop();
  await fake?.close();
  cleanTemps();
});

test("DeepSeek's write_file to a claimed path is refused through the relay's fs; a write elsewhere lands", async () => {
  const repo = makeRepo({ "README.md": "hello\n", "src/a.ts": "export const a = 1;\n" });
  const holder = await relay.createSession({ title: "Holder", cwd: repo });
  const claim = await (await relay.mcp(holder)).call({ action: "claim", paths: ["src/**"], note: "refactoring src" });
  assert.equal(claim.ok, true, JSON.stringify(claim));

  const made = await relay.api("POST", "/api/sessions", {
    provider: "deepseek",
    title: "Writer",
    cwd: repo,
    branch: "ds/work",
  });
  assert.equal(made.status, 201, JSON.stringify(made.json));
  const wt = made.json.worktree.path as string;
  let refusal = "";
  fake.setScript((call: ChatCall) => {
    const results = toolResults(call);
    if (results.length === 0)
      return { toolCalls: [{ name: "write_file", arguments: { path: "src/b.ts", content: "export const b = 2;\n" } }] };
    if (results.length === 1) {
      refusal = results[0].text;
      return { toolCalls: [{ name: "write_file", arguments: { path: "docs/notes.md", content: "notes\n" } }] };
    }
    return { text: "done" };
  });
  const reply = await relay.say(made.json.id, "write the files", 90_000);
  assert.equal(reply.text, "done");
  assert.equal(
    refusal,
    `write_file failed: src/b.ts is claimed by session "Holder" (${holder}) until ${claim.claim.endsAt} ("refactoring src"); write elsewhere or ask that session to release it.`,
  );
  assert.equal(existsSync(join(wt, "src/b.ts")), false, "nothing was written");
  assert.equal(readFileSync(join(wt, "docs/notes.md"), "utf8"), "notes\n");
  const changes = (await relay.api("GET", `/api/sessions/${made.json.id}/changes`)).json;
  assert.deepEqual(
    changes.files.map((f: any) => f.path),
    ["docs/notes.md"],
  );
});
