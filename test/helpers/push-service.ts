// A local Web Push service (the role FCM or Mozilla's autopush play): it hands out
// subscriptions as a browser would make them (a P-256 key pair and an auth secret), receives
// the relay's push requests, checks the VAPID JWT (RFC 8292: ES256 signature with the key in
// `Authorization: vapid t=…, k=…`, `aud` the endpoint's origin, `exp` within 24 hours) and
// decrypts the aes128gcm payload (RFC 8188/8291) with the subscription's private keys — the
// browser's half, written here with node:crypto since it is the fake side.
import { createDecipheriv, createECDH, createPublicKey, hkdfSync, randomBytes, verify, type ECDH } from "node:crypto";
import { HttpReceiver, type Received } from "./http-receiver.ts";

export interface PushSubscriptionJson {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

export interface PushMessage {
  endpoint: string;
  /** The decrypted payload, parsed as JSON. */
  payload: any;
  claims: { aud: string; exp: number; sub: string };
  vapidKey: string;
  headers: Received["headers"];
}

interface Browser {
  ecdh: ECDH;
  auth: Buffer;
}

const b64u = (b: Buffer) => b.toString("base64url");

export class PushService {
  readonly messages: PushMessage[] = [];
  /** Requests refused, with why (a test expects none). */
  readonly refused: { endpoint: string; why: string }[] = [];
  private browsers = new Map<string, Browser>();
  private statusFor = new Map<string, number>();
  private waiters: { n: number; resolve: () => void }[] = [];

  private constructor(readonly receiver: HttpReceiver) {
    receiver.answer = (r) => this.handle(r);
  }

  static async start(opts: { tls?: { cert: string; key: string } } = {}): Promise<PushService> {
    return new PushService(await HttpReceiver.start(opts));
  }

  /** A new browser subscription, as PushSubscription.toJSON() gives it. */
  subscribe(): PushSubscriptionJson {
    const ecdh = createECDH("prime256v1");
    ecdh.generateKeys();
    const auth = randomBytes(16);
    const endpoint = this.receiver.url(`/push/${b64u(randomBytes(12))}`);
    this.browsers.set(endpoint, { ecdh, auth });
    return { endpoint, keys: { p256dh: b64u(ecdh.getPublicKey()), auth: b64u(auth) } };
  }

  /** From now on, answer this endpoint's pushes with `status` (404/410: gone, 500: broken);
   * null: accept them again. */
  answerWith(endpoint: string, status: number | null): void {
    if (status === null) this.statusFor.delete(endpoint);
    else this.statusFor.set(endpoint, status);
  }

  /** Resolves once `n` messages in all have been accepted. */
  /** The push that carries this card. Other notifications may go out before it (a turn's
   * failure, a budget's notice), at moments the relay's clock does not order. */
  async pushFor(cardId: string): Promise<PushMessage> {
    for (let k = 1; ; k++) {
      const m = (await this.received(k))[k - 1];
      if (m.payload.card?.id === cardId) return m;
    }
  }

  received(n: number): Promise<PushMessage[]> {
    if (this.messages.length >= n) return Promise.resolve(this.messages.slice(0, n));
    return new Promise((resolve) => this.waiters.push({ n, resolve: () => resolve(this.messages.slice(0, n)) }));
  }

  close(): Promise<void> {
    return this.receiver.close();
  }

  private handle(r: Received): { status: number; body?: string } {
    const endpoint = this.receiver.url(r.path);
    const browser = this.browsers.get(endpoint);
    if (!browser) return { status: 404, body: "no such subscription" };
    const forced = this.statusFor.get(endpoint);
    if (forced) return { status: forced };
    try {
      const { claims, vapidKey } = checkVapid(String(r.headers.authorization ?? ""), endpoint);
      if (r.headers["content-encoding"] !== "aes128gcm")
        throw new Error(`Content-Encoding is ${r.headers["content-encoding"]}`);
      if (!/^\d+$/.test(String(r.headers.ttl ?? ""))) throw new Error("no TTL header");
      const payload = JSON.parse(decrypt(r.body, browser).toString("utf8"));
      this.messages.push({ endpoint, payload, claims, vapidKey, headers: r.headers });
      const ready = this.waiters.filter((w) => this.messages.length >= w.n);
      this.waiters = this.waiters.filter((w) => this.messages.length < w.n);
      for (const w of ready) w.resolve();
      return { status: 201 };
    } catch (err) {
      this.refused.push({ endpoint, why: (err as Error).message });
      return { status: 403, body: (err as Error).message };
    }
  }
}

/** RFC 8292: `vapid t=<JWT>, k=<public key>`; the JWT signed ES256 by that key. */
function checkVapid(header: string, endpoint: string): { claims: PushMessage["claims"]; vapidKey: string } {
  const m = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(header);
  if (!m) throw new Error(`Authorization is not "vapid t=…, k=…": ${header.slice(0, 40)}`);
  const [, jwt, k] = m;
  const [h, p, s] = jwt.split(".");
  const head = JSON.parse(Buffer.from(h, "base64url").toString());
  if (head.alg !== "ES256") throw new Error(`JWT alg ${head.alg}`);
  const raw = Buffer.from(k, "base64url");
  if (raw.length !== 65 || raw[0] !== 4) throw new Error("k is not an uncompressed P-256 point");
  const key = createPublicKey({
    key: { kty: "EC", crv: "P-256", x: b64u(raw.subarray(1, 33)), y: b64u(raw.subarray(33)) },
    format: "jwk",
  });
  if (!verify("sha256", Buffer.from(`${h}.${p}`), { key, dsaEncoding: "ieee-p1363" }, Buffer.from(s, "base64url"))) {
    throw new Error("the JWT's signature does not verify with k");
  }
  const claims = JSON.parse(Buffer.from(p, "base64url").toString());
  if (claims.aud !== new URL(endpoint).origin) throw new Error(`aud ${claims.aud} is not ${new URL(endpoint).origin}`);
  const now = Math.floor(Date.now() / 1000);
  if (!(claims.exp > now && claims.exp <= now + 24 * 3600)) throw new Error(`exp ${claims.exp} is not within 24 hours`);
  if (!/^(mailto:|https:)/.test(String(claims.sub))) throw new Error(`sub ${claims.sub} is not mailto: or https:`);
  return { claims, vapidKey: k };
}

/** RFC 8188 aes128gcm with RFC 8291's key derivation: header salt(16) rs(4) idlen(1) keyid. */
function decrypt(body: Buffer, b: Browser): Buffer {
  const salt = body.subarray(0, 16);
  const rs = body.readUInt32BE(16);
  const idlen = body[20];
  const asPublic = body.subarray(21, 21 + idlen);
  const records = body.subarray(21 + idlen);
  if (idlen !== 65) throw new Error(`keyid is ${idlen} bytes, not a P-256 public key`);
  if (records.length > rs) throw new Error("more than one record (the relay sends one)");
  const uaPublic = b.ecdh.getPublicKey();
  const ecdhSecret = b.ecdh.computeSecret(asPublic);
  const keyInfo = Buffer.concat([Buffer.from("WebPush: info\0"), uaPublic, asPublic]);
  const ikm = Buffer.from(hkdfSync("sha256", ecdhSecret, b.auth, keyInfo, 32));
  const cek = Buffer.from(hkdfSync("sha256", ikm, salt, Buffer.from("Content-Encoding: aes128gcm\0"), 16));
  const nonce = Buffer.from(hkdfSync("sha256", ikm, salt, Buffer.from("Content-Encoding: nonce\0"), 12));
  const decipher = createDecipheriv("aes-128-gcm", cek, nonce);
  decipher.setAuthTag(records.subarray(records.length - 16));
  const plain = Buffer.concat([decipher.update(records.subarray(0, records.length - 16)), decipher.final()]);
  // Padding: the content, a delimiter (2 for the last record), then zeros.
  let end = plain.length - 1;
  while (end >= 0 && plain[end] === 0) end--;
  if (plain[end] !== 2) throw new Error("the last record's delimiter is not 2");
  return plain.subarray(0, end);
}

/** A notification's button as the service worker presses it: POST /api/cards/:id/act with the
 * action token, no Authorization header. */
export async function cardAct(
  relayUrl: string,
  cardId: string,
  body: Record<string, unknown>,
): Promise<{ status: number; json: any }> {
  const r = await fetch(`${relayUrl}/api/cards/${cardId}/act`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: r.status, json: await r.json() };
}
