// The owner's other ends of notifications: a webhook receiver that checks X-OAR-Signature
// with the shared secret, and an ntfy receiver that reads a message as ntfy does (body as
// text; Title, decoding RFC 2047; Click; Priority).
import { createHmac, timingSafeEqual } from "node:crypto";
import { HttpReceiver } from "./http-receiver.ts";

export interface WebhookEvent {
  json: { type: string; relay: string; session: string | null; title: string; text: string; url: string; at: string };
  /** The signature verified with the receiver's secret (false: missing or wrong). */
  signed: boolean;
  notification: string;
}

export class WebhookReceiver {
  private constructor(
    readonly http: HttpReceiver,
    private secret: string | null,
  ) {}

  static async start(secret: string | null): Promise<WebhookReceiver> {
    return new WebhookReceiver(await HttpReceiver.start(), secret);
  }

  get url(): string {
    return this.http.url("/hook");
  }

  get events(): WebhookEvent[] {
    return this.http.requests.map((r) =>
      this.read(r.body, r.headers["x-oar-signature"], r.headers["x-oar-notification"]),
    );
  }

  async received(n: number): Promise<WebhookEvent[]> {
    await this.http.received(n);
    return this.events.slice(0, n);
  }

  close(): Promise<void> {
    return this.http.close();
  }

  private read(body: Buffer, sig: string | string[] | undefined, id: string | string[] | undefined): WebhookEvent {
    const want = this.secret ? `sha256=${createHmac("sha256", this.secret).update(body).digest("hex")}` : null;
    const got = typeof sig === "string" ? sig : "";
    const signed = !!want && got.length === want.length && timingSafeEqual(Buffer.from(got), Buffer.from(want));
    return { json: JSON.parse(body.toString("utf8")), signed, notification: String(id ?? "") };
  }
}

export interface NtfyMessage {
  topic: string;
  title: string;
  click: string;
  priority: string;
  body: string;
}

/** `=?UTF-8?B?…?=` (and Q) encoded-words, as ntfy decodes them. */
function decodeWords(v: string): string {
  return v.replace(/=\?utf-8\?([bq])\?([^?]*)\?=/gi, (_, enc: string, text: string) =>
    enc.toLowerCase() === "b"
      ? Buffer.from(text, "base64").toString("utf8")
      : Buffer.from(
          text.replace(/_/g, " ").replace(/=([0-9a-f]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16))),
          "latin1",
        ).toString("utf8"),
  );
}

export class NtfyReceiver {
  private constructor(readonly http: HttpReceiver) {
    // ntfy answers a publish with the message as JSON.
    http.answer = () => ({
      status: 200,
      headers: { "content-type": "application/json" },
      body: '{"id":"x","event":"message"}',
    });
  }

  static async start(): Promise<NtfyReceiver> {
    return new NtfyReceiver(await HttpReceiver.start());
  }

  topicUrl(topic: string): string {
    return this.http.url(`/${topic}`);
  }

  get messages(): NtfyMessage[] {
    return this.http.requests.map((r) => ({
      topic: r.path.replace(/^\//, ""),
      title: decodeWords(String(r.headers.title ?? "")),
      click: String(r.headers.click ?? ""),
      priority: String(r.headers.priority ?? ""),
      body: r.body.toString("utf8"),
    }));
  }

  async received(n: number): Promise<NtfyMessage[]> {
    await this.http.received(n);
    return this.messages.slice(0, n);
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
