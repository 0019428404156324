// TLS (contract §10.3): `oar tls init` makes a self-signed certificate; `oar start
// --tls-cert/--tls-key` serves https; a pairing token made on an https relay carries its
// certificate's fingerprint and the relay that exchanges it pins that certificate — two real
// relays pair over https with no authority and no proxy, and a third certificate at the same
// address is refused with REMOTE_RELAY_AUTH before the token or the credential reach it.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { fingerprintOf } from "../src/ops/tls.ts";
import { TestRelay } from "./helpers/relay-process.ts";
import { tool } from "./helpers/control-helpers.ts";
import { toolResults } from "./helpers/core-helpers.ts";

const BIN = resolve(import.meta.dirname, "../bin/oar");
const run = promisify(execFile);

let a: TestRelay;
let b: TestRelay;
let certB: { certFile: string; keyFile: string };
let certOther: { certFile: string; keyFile: string };

async function tlsInit(dir: string) {
  const { stdout } = await run(BIN, ["tls", "init", "--data", dir]);
  return { certFile: join(dir, "tls", "cert.pem"), keyFile: join(dir, "tls", "key.pem"), stdout };
}

before(async () => {
  const dirB = mkdtempSync(join(tmpdir(), "oar-tls-b-"));
  const made = await tlsInit(dirB);
  certB = made;
  certOther = await tlsInit(mkdtempSync(join(tmpdir(), "oar-tls-x-")));
  b = await TestRelay.start({ name: "build", dataDir: dirB, tls: certB });
  a = await TestRelay.start({ name: "desk" });
});
after(async () => {
  await a?.stop();
  await b?.stop();
});

test("oar tls init: both files in DATA/tls, the key 0600, paths and fingerprint printed; run again it keeps them", async () => {
  const dir = mkdtempSync(join(tmpdir(), "oar-tls-"));
  const first = await tlsInit(dir);
  assert.equal(statSync(first.keyFile).mode & 0o777, 0o600);
  assert.equal(statSync(first.certFile).mode & 0o777, 0o600);
  const fp = fingerprintOf(readFileSync(first.certFile, "utf8"));
  assert.ok(first.stdout.includes(first.certFile) && first.stdout.includes(first.keyFile), first.stdout);
  assert.ok(first.stdout.includes(fp), first.stdout);
  const again = await tlsInit(dir);
  assert.equal(fingerprintOf(readFileSync(first.certFile, "utf8")), fp);
  assert.match(again.stdout, /^Kept/);
});

test("an https relay's pairing token carries its certificate's fingerprint; the other relay pins it and the link works", async () => {
  assert.match(b.url, /^https:/);
  const t = await b.api("POST", "/api/pairing-tokens", {});
  assert.equal(t.status, 201);
  const fp = fingerprintOf(readFileSync(certB.certFile, "utf8"));
  assert.equal(t.json.fingerprint, fp);
  assert.ok(t.json.token.endsWith(`.${fp.replace(/:/g, "").toLowerCase()}`), t.json.token);
  const r = await a.api("POST", "/api/relays", { name: "build", url: b.url, token: t.json.token });
  assert.equal(r.status, 201, JSON.stringify(r.json));
  // A call across the pinned link: an agent on desk lists build's sessions.
  const ses = await b.createSession({ title: "On build" });
  const caller = await a.createSession({ title: "Caller" });
  const [res] = toolResults(await a.say(caller, tool({ action: "list_sessions", relay: "build" }), 60_000));
  assert.equal(res.ok, true, JSON.stringify(res));
  assert.ok(JSON.stringify(res).includes(ses), JSON.stringify(res));
  // `oar url` gives the https link.
  const { stdout } = await run(BIN, ["url", "--data", b.dataDir]);
  assert.equal(stdout.trim(), `${b.url}/#token=${b.token}`);
  // The https relay's own agents reach its /mcp over https (they trust its certificate).
  const [own] = toolResults(await b.say(ses, tool({ action: "list_relays", relay: "this" }), 60_000));
  assert.equal(own.ok, true, JSON.stringify(own));
});

test("a third certificate at the same address: the link and a new pairing are refused with REMOTE_RELAY_AUTH, and the token never reached it", async () => {
  const caller = await a.createSession({ title: "Caller two" });
  const t = await b.api("POST", "/api/pairing-tokens", {});
  // The same address now presents another certificate.
  (b.opts as { tls?: unknown }).tls = certOther;
  await b.restart({ samePort: true });
  const [res] = toolResults(await a.say(caller, tool({ action: "list_sessions", relay: "build" }), 60_000));
  assert.equal(res.ok, false);
  assert.equal(res.code, "REMOTE_RELAY_AUTH", JSON.stringify(res));
  const refused = await a.api("POST", "/api/relays", { name: "build2", url: b.url, token: t.json.token });
  assert.equal(refused.status, 401, JSON.stringify(refused.json));
  assert.equal(refused.json.code, "REMOTE_RELAY_AUTH");
  assert.match(refused.json.error, /not the one that made the pairing token/);
  assert.equal((await a.api("GET", "/api/relays")).json.relays.filter((r: any) => r.name === "build2").length, 0);
  // Back with its own certificate: the token, never sent, still pairs.
  (b.opts as { tls?: unknown }).tls = certB;
  await b.restart({ samePort: true });
  const ok = await a.api("POST", "/api/relays", { name: "build2", url: b.url, token: t.json.token });
  assert.equal(ok.status, 201, JSON.stringify(ok.json));
});

test("plain http:// is accepted for 100.64.0.0/10 (carrier-grade NAT, Tailscale), refused for a public address", async () => {
  const t = await b.api("POST", "/api/pairing-tokens", {});
  // 100.100.100.100 does not answer here: refused as offline, past the address check.
  const cgnat = await a.api("POST", "/api/relays", {
    name: "tail",
    url: "http://100.100.100.100:1",
    token: t.json.token,
  });
  assert.notEqual(cgnat.json.code, "REMOTE_RELAY_INVALID_INPUT", JSON.stringify(cgnat.json));
  const pub = await a.api("POST", "/api/relays", { name: "pub", url: "http://100.128.0.1:1", token: t.json.token });
  assert.equal(pub.json.code, "REMOTE_RELAY_INVALID_INPUT");
  assert.match(pub.json.error, /must use https:\/\//);
});
