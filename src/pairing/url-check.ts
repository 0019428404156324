import { isIP } from "node:net";
import { RelayError } from "../core/errors.ts";

// Remote addresses must use https:// (seed §7.4); plain http:// only for loopback, private
// network ranges and carrier-grade NAT (100.64.0.0/10, e.g. Tailscale), where the path is
// the owner's or encrypted underneath.

function privateV4(ip: string): boolean {
  const [a, b] = ip.split(".").map(Number);
  // 100.64.0.0/10: carrier-grade NAT, where Tailscale gives its addresses (contract §10.3).
  return (
    a === 127 ||
    a === 10 ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 169 && b === 254) ||
    (a === 100 && b >= 64 && b <= 127)
  );
}

function privateV6(ip: string): boolean {
  const v = ip.toLowerCase();
  if (v === "::1") return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(v);
  if (mapped) return privateV4(mapped[1]);
  return /^f[cd][0-9a-f]{2}:/.test(v) || /^fe[89ab][0-9a-f]:/.test(v);
}

/** Whether a host name is loopback or in a private range (names other than localhost are not:
 * what they resolve to can change). */
export function isLocalHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (h === "localhost" || h.endsWith(".localhost")) return true;
  const kind = isIP(h);
  if (kind === 4) return privateV4(h);
  if (kind === 6) return privateV6(h);
  return false;
}

/** The paired relay's base URL, checked; refuses with INVALID_INPUT saying why. */
export function checkRelayUrl(raw: unknown): URL {
  const tail = "Nothing was paired.";
  if (typeof raw !== "string" || !raw.trim())
    throw new RelayError(
      "REMOTE_RELAY_INVALID_INPUT",
      `url is the other relay's address, e.g. "https://build-box.example.com". ${tail}`,
    );
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new RelayError("REMOTE_RELAY_INVALID_INPUT", `url "${raw.slice(0, 200)}" is not a valid address. ${tail}`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    throw new RelayError("REMOTE_RELAY_INVALID_INPUT", `url must start with https:// (got ${url.protocol}). ${tail}`);
  if (url.protocol === "http:" && !isLocalHost(url.hostname)) {
    throw new RelayError(
      "REMOTE_RELAY_INVALID_INPUT",
      `Remote relay addresses must use https://; plain http:// is accepted only for loopback and private network ranges, and ${url.hostname} is neither. ${tail}`,
    );
  }
  if (url.username || url.password)
    throw new RelayError("REMOTE_RELAY_INVALID_INPUT", `url must not carry a user name or password. ${tail}`);
  url.hash = "";
  url.search = "";
  url.pathname = url.pathname.replace(/\/+$/, "");
  return url;
}
