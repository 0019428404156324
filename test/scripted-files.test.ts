// The scripted agent's `/write`, `/commit` and `/usage` (contract §10.1): through a real relay
// into a real git repository (no git identity configured, as on a fresh CI machine), and
// driven over ACP by a client that offers `fs.writeTextFile` and may refuse a write.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { TestRelay } from "./helpers/relay-process.ts";
import { cleanTemps, g, isolateGit, makeRepo } from "./helpers/git-repos.ts";

isolateGit();
let relay: TestRelay;
before(async () => {
  relay = await TestRelay.start();
});
after(async () => {
  await relay?.stop();
  cleanTemps();
});

async function metaOf(sessionId: string, messageId: string): Promise<any> {
  return (await relay.session(sessionId)).messages.find((m: any) => m.id === messageId).meta;
}

test("/write writes the file (making folders) and reports an edit with its diff; /commit commits it", async () => {
  const repo = makeRepo({ "README.md": "old readme\n" });
  const id = await relay.createSession({ cwd: repo });
  const reply = await relay.say(
    id,
    [
      "/write src/deep/new.ts export const x = 1;\\nexport const y = 2;\\n",
      "/write README.md new readme\\n",
      "/commit scripted change",
    ].join("\n"),
  );
  assert.equal(readFileSync(join(repo, "src/deep/new.ts"), "utf8"), "export const x = 1;\nexport const y = 2;\n");
  assert.equal(readFileSync(join(repo, "README.md"), "utf8"), "new readme\n");
  const short = g(repo, "rev-parse", "--short", "HEAD").trim();
  assert.equal(reply.text, `commit: ${short}`);
  assert.equal(
    g(repo, "log", "-1", "--format=%s|%an <%ae>").trim(),
    "scripted change|OAR scripted agent <scripted@localhost>",
  );
  assert.equal(g(repo, "status", "--porcelain"), "");
  const [created, edited] = (await metaOf(id, reply.id)).activity;
  assert.deepEqual(
    {
      kind: created.kind,
      title: created.title,
      toolKind: created.toolKind,
      status: created.status,
      locations: created.locations,
      diffs: created.diffs,
    },
    {
      kind: "tool",
      title: "Write src/deep/new.ts",
      toolKind: "edit",
      status: "completed",
      locations: [join(repo, "src/deep/new.ts")],
      diffs: [
        { path: join(repo, "src/deep/new.ts"), oldText: null, newText: "export const x = 1;\nexport const y = 2;\n" },
      ],
    },
  );
  assert.deepEqual(edited.diffs, [{ path: join(repo, "README.md"), oldText: "old readme\n", newText: "new readme\n" }]);
});

test("/write outside the session's folder is refused and writes nothing; /commit with nothing to commit says so", async () => {
  const repo = makeRepo();
  const id = await relay.createSession({ cwd: repo });
  const reply = await relay.say(id, "/write ../escape.txt nope\n/write /etc/oar-nope.txt nope\n/commit nothing here");
  assert.equal(
    reply.text,
    [
      "write refused: ../escape.txt is outside the session's folder",
      "write refused: /etc/oar-nope.txt is outside the session's folder",
      "commit: nothing to commit, working tree clean",
    ].join("\n"),
  );
  assert.equal(existsSync(join(repo, "..", "escape.txt")), false);
});

test("/usage reports a turn's tokens and cost as real agents do: kept with the reply, each turn its own share", async () => {
  const repo = makeRepo();
  const id = await relay.createSession({ cwd: repo });
  const r1 = await relay.say(id, "/usage 1200 340 0.25\n/usage 800 60 0.05\n/reply done");
  assert.equal(r1.text, "done");
  assert.deepEqual((await metaOf(id, r1.id)).usage, { inputTokens: 2000, outputTokens: 400, costUsd: 0.3 });
  const r2 = await relay.say(id, "/usage 10 5 0.1");
  assert.deepEqual((await metaOf(id, r2.id)).usage, { inputTokens: 10, outputTokens: 5, costUsd: 0.1 });
  const bad = await relay.say(id, "/usage 10 five 0.1");
  assert.equal(bad.text, "invalid directive: /usage 10 five 0.1");
  const usage = (await relay.api("GET", "/api/usage")).json;
  const scripted = usage.providers.find((p: any) => p.id === "scripted");
  assert.equal(scripted.meters.find((m: any) => m.unit === "USD").used, 0.4);
  assert.equal(scripted.meters.find((m: any) => m.unit === "tokens").used, 2415);
});

test("with a client that offers fs.writeTextFile, /write goes through it, and its refusal is the reply", async () => {
  const repo = makeRepo({ "src/a.ts": "a\n" });
  const child = spawn(process.execPath, ["--import", "tsx", "src/providers/scripted/agent.ts"], {
    cwd: join(import.meta.dirname, ".."),
    stdio: ["pipe", "pipe", "ignore"],
  });
  const writes: { path: string; content: string }[] = [];
  const updates: any[] = [];
  const chunks: string[] = [];
  const conn = acp
    .client({ name: "fs-client" })
    .onNotification("session/update", ({ params }) => {
      const u = params.update as any;
      if (u.sessionUpdate === "agent_message_chunk") chunks.push(u.content.text);
      else updates.push(u);
    })
    .onRequest("fs/write_text_file", ({ params }) => {
      if (params.path.endsWith("/src/a.ts"))
        throw new acp.RequestError(
          -32000,
          'src/a.ts is claimed by session "Alice" (ses_alice0000001) until 2026-12-01T11:00:00.000Z',
        );
      writes.push({ path: params.path, content: params.content });
      return {};
    })
    .connect(
      acp.ndJsonStream(
        Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
        Readable.toWeb(child.stdout!) as unknown as ReadableStream<Uint8Array>,
      ),
    );
  try {
    await conn.agent.request("initialize", {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
    });
    const { sessionId } = await conn.agent.request("session/new", { cwd: repo, mcpServers: [] });
    await conn.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "/write src/a.ts mine now\n/write src/b.ts b\\n" }],
    });
    assert.equal(
      chunks.join(""),
      'write refused: src/a.ts is claimed by session "Alice" (ses_alice0000001) until 2026-12-01T11:00:00.000Z',
    );
    assert.equal(readFileSync(join(repo, "src/a.ts"), "utf8"), "a\n", "the refused write changed nothing");
    assert.deepEqual(writes, [{ path: join(repo, "src/b.ts"), content: "b\n" }]);
    assert.equal(existsSync(join(repo, "src/b.ts")), false, "the client writes, not the agent");
    const ends = updates.filter((u) => u.sessionUpdate === "tool_call_update").map((u) => u.status);
    assert.deepEqual(ends, ["failed", "completed"]);
    assert.deepEqual(
      updates.filter((u) => u.sessionUpdate === "tool_call").map((u) => [u.kind, u.content[0].oldText]),
      [
        ["edit", "a\n"],
        ["edit", null],
      ],
    );
  } finally {
    child.kill();
  }
});
