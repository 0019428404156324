import { existsSync, readFileSync } from "node:fs";
import { rootCertificates } from "node:tls";

// Whom notifications trust (contract §10.3): the system's certificate authorities and
// NODE_EXTRA_CA_CERTS. Node 20 trusts only its own bundled list by default and has no API
// for the system store, and passing `ca` replaces the defaults (NODE_EXTRA_CA_CERTS
// included), so the list is made here: Node's, the system bundle's, the extra file's.

/** Where distributions keep their bundle (Debian/Ubuntu, Fedora/RHEL, openSUSE, Alpine/macOS). */
const SYSTEM_BUNDLES = [
  "/etc/ssl/certs/ca-certificates.crt",
  "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
  "/etc/pki/tls/certs/ca-bundle.crt",
  "/etc/ssl/ca-bundle.pem",
  "/etc/ssl/cert.pem",
];

const PEM = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

function pemsIn(file: string | undefined): string[] {
  if (!file || !existsSync(file)) return [];
  try {
    return readFileSync(file, "utf8").match(PEM) ?? [];
  } catch {
    return [];
  }
}

/** Node's roots, the system's bundle (SSL_CERT_FILE when set) and NODE_EXTRA_CA_CERTS, once each. */
export function trustedCAs(env: NodeJS.ProcessEnv = process.env): string[] {
  const system = env.SSL_CERT_FILE ? pemsIn(env.SSL_CERT_FILE) : pemsIn(SYSTEM_BUNDLES.find((f) => existsSync(f)));
  const seen = new Set<string>();
  const out: string[] = [];
  for (const pem of [...rootCertificates, ...system, ...pemsIn(env.NODE_EXTRA_CA_CERTS)]) {
    const key = pem.replace(/\s+/g, "");
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(pem);
  }
  return out;
}
