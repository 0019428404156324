// TLS groundwork (contract §10.3): `oar tls init` makes a self-signed certificate once
// (DATA/tls/cert.pem and key.pem, 0600); its SHA-256 fingerprint is what a pairing token will
// carry; an agent pinned to it reaches that server though it is self-signed, and refuses any
// other certificate before a single byte of the request (a credential) is sent.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createPrivateKey, X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import tls from "node:tls";
import {
  fingerprintOf,
  makeSelfSigned,
  normalizeFingerprint,
  PinMismatch,
  pinnedAgent,
  tlsInit,
} from "../src/ops/tls.ts";

test("a self-signed certificate names the hosts, verifies with its own key, and matches the key made with it", async () => {
  const made = await makeSelfSigned({ commonName: "desk", hosts: ["localhost", "127.0.0.1", "relay.example"] });
  const x = new X509Certificate(made.cert);
  assert.equal(x.subject, "CN=desk");
  assert.equal(x.subjectAltName, "DNS:localhost, IP Address:127.0.0.1, DNS:relay.example");
  assert.ok(x.verify(x.publicKey), "self-signed");
  assert.ok(x.checkPrivateKey(createPrivateKey(made.key)));
  assert.equal(x.ca, false);
  assert.ok(Date.parse(x.validTo) - Date.now() > 800 * 86_400_000);
  assert.equal(made.fingerprint, x.fingerprint256);
  assert.equal(fingerprintOf(made.cert), x.fingerprint256);
});

test("tls init writes cert.pem and key.pem (0600) under DATA/tls once, and keeps them after", async () => {
  const data = mkdtempSync(join(tmpdir(), "oar-tls-"));
  try {
    const first = await tlsInit(data);
    assert.deepEqual(
      [first.certFile, first.keyFile, first.created],
      [join(data, "tls", "cert.pem"), join(data, "tls", "key.pem"), true],
    );
    assert.equal(statSync(first.keyFile).mode & 0o777, 0o600);
    assert.equal(statSync(first.certFile).mode & 0o777, 0o600);
    assert.equal(statSync(join(data, "tls")).mode & 0o777, 0o700);
    assert.equal(first.fingerprint, fingerprintOf(readFileSync(first.certFile, "utf8")));
    const again = await tlsInit(data);
    assert.deepEqual(again, { ...first, created: false });
  } finally {
    rmSync(data, { recursive: true, force: true });
  }
});

test("fingerprints are read in any common spelling and refused when not 32 bytes", () => {
  const canonical = `AB:${"01:".repeat(30)}CD`;
  assert.equal(normalizeFingerprint(canonical.toLowerCase()), canonical);
  assert.equal(normalizeFingerprint(canonical.replace(/:/g, "")), canonical);
  assert.equal(normalizeFingerprint(`sha256:${canonical.replace(/:/g, "").toLowerCase()}`), canonical);
  assert.equal(normalizeFingerprint("AB:CD"), null);
  assert.equal(normalizeFingerprint(`${canonical}:EF`), null);
  assert.equal(normalizeFingerprint(42), null);
});

async function serve(cert: { cert: string; key: string }) {
  const requests: string[] = [];
  const server = https.createServer(cert, (req, res) => {
    requests.push(String(req.headers.authorization));
    res.end("hello");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/peer/v1/health`;
  const close = () => {
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  };
  return { server, url, requests, close };
}

const get = (url: string, agent?: https.Agent) =>
  new Promise<string>((resolve, reject) => {
    const req = https.get(url, { agent, headers: { Authorization: "Bearer pairing-credential" } }, (res) => {
      let body = "";
      res.on("data", (c) => (body += c));
      res.on("end", () => resolve(body));
    });
    req.on("error", reject);
  });

test("a pinned agent reaches the self-signed server it pins; without the pin the certificate is refused", async () => {
  const a = await makeSelfSigned({ hosts: ["127.0.0.1"] });
  const srv = await serve(a);
  try {
    await assert.rejects(get(srv.url), /self[- ]signed/i);
    const agent = pinnedAgent(a.fingerprint.toLowerCase().replace(/:/g, ""), { keepAlive: true });
    assert.equal(await get(srv.url, agent), "hello");
    assert.equal(await get(srv.url, agent), "hello");
    assert.deepEqual(srv.requests, ["Bearer pairing-credential", "Bearer pairing-credential"]);
    agent.destroy();
  } finally {
    await srv.close();
  }
});

test("another certificate at the pinned address is refused before any byte of the request reaches it", async () => {
  const a = await makeSelfSigned({ hosts: ["127.0.0.1"] });
  const impostor = await makeSelfSigned({ hosts: ["127.0.0.1"] });
  // A bare TLS server: it records every byte it is sent after the handshake.
  const received: Buffer[] = [];
  const server = tls.createServer(impostor, (socket) => socket.on("data", (c) => received.push(c)));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/peer/v1/health`;
  try {
    const err = await get(url, pinnedAgent(a.fingerprint)).then(
      () => null,
      (e) => e,
    );
    assert.ok(err instanceof PinMismatch, String(err));
    assert.equal(err.code, "CERT_PIN_MISMATCH");
    assert.equal(err.presented, impostor.fingerprint);
    assert.equal(err.expected, a.fingerprint);
    await new Promise((r) => setImmediate(r));
    assert.equal(Buffer.concat(received).length, 0, "the credential never left");
    assert.throws(() => pinnedAgent("not a fingerprint"), /SHA-256 fingerprint/);
  } finally {
    await new Promise<void>((r) => server.close(() => r()));
  }
});
