// Paired relays in tests: pairs two real relays (token on B, POST /api/relays on A) and a
// small TCP proxy that can cut and restore the link between them.
import { createServer, connect, type Server, type Socket } from "node:net";
import { readFileSync } from "node:fs";
import { TestRelay, freePort, type McpSession } from "./relay-process.ts";

/** The version a relay of this checkout presents. */
export const OAR_VERSION: string = JSON.parse(
  readFileSync(new URL("../../package.json", import.meta.url), "utf8"),
).version;

/** Pairs `a` with `b` (one way: a may call b) under `name` (default: b's own name). */
export async function pair(a: TestRelay, b: TestRelay, opts: { name?: string; url?: string } = {}): Promise<any> {
  const t = await b.api("POST", "/api/pairing-tokens", { label: "test" });
  if (t.status !== 201) throw new Error(`token: ${t.status} ${JSON.stringify(t.json)}`);
  const r = await a.api("POST", "/api/relays", {
    name: opts.name ?? b.opts.name,
    url: opts.url ?? b.url,
    token: t.json.token,
  });
  if (r.status !== 201) throw new Error(`pair: ${r.status} ${JSON.stringify(r.json)}`);
  return r.json;
}

/** A TCP proxy in front of a relay: `cut()` drops every connection and refuses new ones until `restore()`. */
export class LinkProxy {
  private server!: Server;
  private sockets = new Set<Socket>();
  private open = true;
  port = 0;

  constructor(private target: () => string) {}

  static async start(target: () => string): Promise<LinkProxy> {
    const p = new LinkProxy(target);
    p.port = await freePort();
    await p.listen();
    return p;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  private listen(): Promise<void> {
    this.server = createServer((client) => {
      if (!this.open) return client.destroy();
      const t = new URL(this.target());
      const upstream = connect(Number(t.port), t.hostname);
      this.sockets.add(client);
      this.sockets.add(upstream);
      const drop = () => {
        client.destroy();
        upstream.destroy();
        this.sockets.delete(client);
        this.sockets.delete(upstream);
      };
      client.on("error", drop).on("close", drop);
      upstream.on("error", drop).on("close", drop);
      client.pipe(upstream);
      upstream.pipe(client);
    });
    return new Promise((res) => this.server.listen(this.port, "127.0.0.1", () => res()));
  }

  /** Drops the link: open connections are cut and new ones refused. */
  cut(): void {
    this.open = false;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
  }

  restore(): void {
    this.open = true;
  }

  close(): Promise<void> {
    this.cut();
    return new Promise((res) => this.server.close(() => res()));
  }
}

/** The conversation's messages of role `event` (relay events), as text. */
export async function eventTexts(r: TestRelay, sessionId: string): Promise<string[]> {
  const s = await r.session(sessionId);
  return s.messages.filter((m: any) => m.role === "event").map((m: any) => m.text as string);
}

/** Two real relays, `desk` paired one way with `bbox` (optionally through a LinkProxy), a
 * conversation on desk with its agent's MCP session, and a session on bbox: the set-up most
 * pairing tests share. `mention` is the owner's first message (it unlocks bbox), if any. */
export interface PairedRelays {
  a: TestRelay;
  b: TestRelay;
  proxy?: LinkProxy;
  conv: string;
  agent: McpSession;
  target: string;
  stop(): Promise<void>;
}

export async function pairedRelays(opts: {
  conv: string;
  target: string;
  mention?: string;
  proxy?: boolean;
  testClock?: boolean;
}): Promise<PairedRelays> {
  const a = await TestRelay.start({ name: "desk", testClock: opts.testClock });
  const b = await TestRelay.start({ name: "bbox", testClock: opts.testClock });
  const proxy = opts.proxy ? await LinkProxy.start(() => b.url) : undefined;
  await pair(a, b, { url: proxy?.url });
  const conv = await a.createSession({ title: opts.conv });
  const agent = await a.mcp(conv);
  const target = await b.createSession({ title: opts.target });
  if (opts.mention) await a.say(conv, opts.mention);
  const stop = async () => {
    await proxy?.close();
    await Promise.all([a.stop(), b.stop()]);
  };
  return { a, b, proxy, conv, agent, target, stop };
}

/** A peer that speaks /peer/v1 by hand with a real credential (paired with a real token), to
 * make the calls a hostile or careless relay could make. */
export class HandPeer {
  private constructor(
    readonly relay: TestRelay,
    readonly credential: string,
  ) {}

  static async pair(relay: TestRelay, name: string): Promise<HandPeer> {
    const t = await relay.api("POST", "/api/pairing-tokens", { label: "by hand" });
    const res = await fetch(`${relay.url}/peer/v1/pair`, {
      method: "POST",
      headers: { "content-type": "application/json", "oar-version": OAR_VERSION },
      body: JSON.stringify({ token: t.json.token, name }),
    });
    const json = (await res.json()) as { credential?: string };
    if (!json.credential) throw new Error(`pair by hand: ${res.status} ${JSON.stringify(json)}`);
    return new HandPeer(relay, json.credential);
  }

  async request(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
    const res = await fetch(`${this.relay.url}/peer/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.credential}`,
        "oar-version": OAR_VERSION,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    let json: any = text;
    try {
      json = JSON.parse(text);
    } catch {}
    return { status: res.status, json };
  }

  /** POST /call as conversation `session` there; `origin` the relays its prompt crossed. */
  async call(
    action: string,
    args: Record<string, unknown>,
    opts: { session?: string; origin?: string[]; approved?: boolean; mode?: "agent" | "ask" | "plan" } = {},
  ): Promise<any> {
    const r = await this.request("POST", "/call", {
      action,
      args,
      caller: {
        session: opts.session ?? "ses_handpeer0001",
        title: "By hand",
        model: "scripted-1",
        provider: "scripted",
        effort: null,
        mode: opts.mode ?? "agent",
        cwd: "/nonexistent",
        startedByAgent: false,
        mayCreateSessions: false,
        loopEpoch: 0,
      },
      origin: { relays: opts.origin ?? ["hand"], ownerUnlocked: [] },
      unlocked: [],
      ...(opts.approved === false ? {} : { approved: true }),
    });
    if (r.status !== 200) throw new Error(`call: ${r.status} ${JSON.stringify(r.json)}`);
    return r.json;
  }
}
