import { createPrivateKey, randomBytes, webcrypto, X509Certificate } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import https from "node:https";
import { isIP } from "node:net";
import { hostname } from "node:os";
import { join } from "node:path";
import type { Duplex } from "node:stream";
import tls from "node:tls";

// TLS groundwork (contract §10.3): `oar tls init` makes a self-signed certificate, a pairing
// token made on an https relay carries its SHA-256 fingerprint, and the relay that pairs pins
// that certificate: accepted though self-signed, any other refused. Node's crypto cannot make
// an X.509 certificate, so @peculiar/x509 (over Node's WebCrypto) does; it is loaded only
// when a certificate is made, never by a running relay.

const DIR_MODE = 0o700;
const FILE_MODE = 0o600;
const DAY = 86_400_000;

export interface SelfSigned {
  cert: string;
  key: string;
  fingerprint: string;
}

export interface SelfSignedOptions {
  commonName?: string;
  /** DNS names and IP addresses the certificate names (subjectAltName). */
  hosts?: string[];
  /** 825 days: the longest Apple's devices accept even from an authority one trusts. */
  days?: number;
  now?: number;
}

export const defaultHosts = (): string[] => [...new Set(["localhost", "127.0.0.1", "::1", hostname()])];

/** A new ECDSA P-256 key and a self-signed certificate for it (PEM), with its fingerprint. */
export async function makeSelfSigned(opts: SelfSignedOptions = {}): Promise<SelfSigned> {
  await import("reflect-metadata"); // @peculiar/x509's dependency injection needs it
  const x509 = await import("@peculiar/x509");
  x509.cryptoProvider.set(webcrypto as unknown as Crypto);
  const alg = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };
  const keys = (await webcrypto.subtle.generateKey(alg, true, ["sign", "verify"])) as CryptoKeyPair;
  const now = opts.now ?? Date.now();
  const hosts = opts.hosts ?? defaultHosts();
  const serial = randomBytes(16);
  serial[0] &= 0x7f; // a positive serial (RFC 5280 §4.1.2.2)
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial.toString("hex"),
    name: `CN=${(opts.commonName ?? "OAR relay").replace(/[,=+<>#;"\\]/g, " ")}`,
    notBefore: new Date(now - DAY),
    notAfter: new Date(now + (opts.days ?? 825) * DAY),
    keys,
    signingAlgorithm: alg,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(
        hosts.map((h) => (isIP(h) ? { type: "ip" as const, value: h } : { type: "dns" as const, value: h })),
      ),
    ],
  });
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey("pkcs8", keys.privateKey));
  const key = createPrivateKey({ key: pkcs8, format: "der", type: "pkcs8" }).export({
    type: "pkcs8",
    format: "pem",
  }) as string;
  const pem = cert.toString("pem");
  return { cert: pem, key, fingerprint: fingerprintOf(pem) };
}

/** A certificate's SHA-256 fingerprint as `AB:CD:…` (what Node's TLS reports for a peer). */
export const fingerprintOf = (certPem: string): string => new X509Certificate(certPem).fingerprint256;

/** A fingerprint as written anywhere (any case, with or without colons) in `AB:CD:…` form;
 * null when it is not 32 bytes of hex. */
export function normalizeFingerprint(s: unknown): string | null {
  if (typeof s !== "string") return null;
  const hex = s
    .replace(/^sha256[:/=]?/i, "")
    .replace(/[\s:]/g, "")
    .toUpperCase();
  if (!/^[0-9A-F]{64}$/.test(hex)) return null;
  return hex.match(/../g)!.join(":");
}

export interface TlsFiles {
  certFile: string;
  keyFile: string;
  fingerprint: string;
  /** False when the data folder already had a certificate: it is kept, never replaced. */
  created: boolean;
}

/** `oar tls init [--data DIR]`: DATA/tls/cert.pem and key.pem (0600), made once. */
export async function tlsInit(dataDir: string, opts: SelfSignedOptions = {}): Promise<TlsFiles> {
  const dir = join(dataDir, "tls");
  const certFile = join(dir, "cert.pem");
  const keyFile = join(dir, "key.pem");
  if (existsSync(certFile) && existsSync(keyFile)) {
    return { certFile, keyFile, fingerprint: fingerprintOf(readFileSync(certFile, "utf8")), created: false };
  }
  mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  chmodSync(dir, DIR_MODE);
  const made = await makeSelfSigned(opts);
  // Written beside and renamed: a crash never leaves half a key or a key without its certificate.
  for (const [file, text] of [
    [keyFile, made.key],
    [certFile, made.cert],
  ] as const) {
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, text, { mode: FILE_MODE });
    chmodSync(tmp, FILE_MODE);
    renameSync(tmp, file);
  }
  return { certFile, keyFile, fingerprint: made.fingerprint, created: true };
}

/** The other side presented a certificate other than the one pinned. */
export class PinMismatch extends Error {
  readonly code = "CERT_PIN_MISMATCH";
  constructor(
    readonly expected: string,
    readonly presented: string | null,
  ) {
    super(`the certificate presented (${presented ?? "none"}) is not the one pinned (${expected})`);
  }
}

/** An https agent that trusts exactly one certificate, by fingerprint, self-signed or not.
 * The socket is handed to the request only after the handshake showed the pinned certificate
 * (and the peer proved it holds its key), so nothing — no credential — reaches an impostor. */
export function pinnedAgent(fingerprint: string, opts: https.AgentOptions = {}): https.Agent {
  const pin = normalizeFingerprint(fingerprint);
  if (!pin) throw new Error("pinnedAgent needs a SHA-256 fingerprint (64 hex digits)");
  const agent = new https.Agent({ ...opts, rejectUnauthorized: false });
  agent.createConnection = (options, callback) => {
    const o = options as tls.ConnectionOptions;
    // SNI carries names only (RFC 6066); the pin, not the name, identifies the peer.
    const servername = o.servername && !isIP(o.servername) ? o.servername : undefined;
    const socket = tls.connect({ ...o, servername, rejectUnauthorized: false, checkServerIdentity: () => undefined });
    const onError = (err: Error) => callback?.(err, socket as Duplex);
    socket.once("error", onError);
    socket.once("secureConnect", () => {
      socket.removeListener("error", onError);
      const presented = socket.getPeerCertificate()?.fingerprint256 ?? null;
      if (presented !== pin) {
        const err = new PinMismatch(pin, presented);
        socket.destroy();
        callback?.(err, socket as Duplex);
        return;
      }
      callback?.(null, socket as Duplex);
    });
    return undefined;
  };
  return agent;
}

/** What the relay's own agents trust when it serves https (NODE_EXTRA_CA_CERTS, which Node reads
 * once at start): its certificate, added to the extra CAs already named (kept as
 * DATA/tls/agent-ca.pem), so an agent reaches /mcp over https, a self-signed one included. */
export function agentTrust(dataDir: string, certPem: string, extra = process.env.NODE_EXTRA_CA_CERTS): string {
  let before = "";
  try {
    before = extra ? readFileSync(extra, "utf8") : "";
  } catch {}
  const dir = join(dataDir, "tls");
  mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  const file = join(dir, "agent-ca.pem");
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${before.trimEnd()}${before ? "\n" : ""}${certPem.trim()}\n`, { mode: FILE_MODE });
  renameSync(tmp, file);
  return file;
}
