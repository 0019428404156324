// A fake OpenAI Images API on loopback, speaking the real wire format: POST
// /v1/images/generations (JSON) and /v1/images/edits (multipart form), answering base64 PNGs
// of the asked size, and OpenAI's error bodies. A wrong key gets 401, a prompt containing
// "forbidden" gets 400 content_policy_violation, and `failNext` queues answers (429 with
// retry-after-ms, 500, …) for the next requests. (Images part; the chat-completions part of
// this file is agents-e2e's.)
import { createServer, type Server, type ServerResponse } from "node:http";
import { deflateSync } from "node:zlib";

export interface ImagesRequest {
  path: string;
  auth: string;
  /** JSON body, or the form's fields; files as { filename, type, bytes }. */
  body: Record<string, any>;
}

export interface FakeOpenAI {
  /** Base URL as the SDK takes it (…/v1). */
  url: string;
  key: string;
  requests: ImagesRequest[];
  failNext(...answers: { status: number; body: unknown; headers?: Record<string, string> }[]): void;
  close(): Promise<void>;
}

export async function startFakeOpenAI(key = "sk-test-good"): Promise<FakeOpenAI> {
  const requests: ImagesRequest[] = [];
  const queued: { status: number; body: unknown; headers?: Record<string, string> }[] = [];
  const server: Server = createServer(async (req, res) => {
    try {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const buf = Buffer.concat(chunks);
      const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
      const type = req.headers["content-type"] ?? "";
      const body: Record<string, any> = {};
      if (type.startsWith("multipart/form-data")) {
        const form = await new Response(buf, { headers: { "content-type": type } }).formData();
        for (const [k, v] of form.entries()) {
          const value = typeof v === "string" ? v : { filename: (v as File).name, type: v.type, bytes: Buffer.from(await v.arrayBuffer()) };
          body[k] = k in body ? [...[body[k]].flat(), value] : value;
        }
      } else if (buf.length) Object.assign(body, JSON.parse(buf.toString("utf8")));
      const auth = String(req.headers.authorization ?? "");
      requests.push({ path, auth, body });
      answer(res, path, auth, body);
    } catch (err) {
      send(res, 500, { error: { message: `fake server failed: ${String(err)}`, type: "server_error", code: null } });
    }
  });

  function answer(res: ServerResponse, path: string, auth: string, body: Record<string, any>): void {
    if (path !== "/v1/images/generations" && path !== "/v1/images/edits") {
      return send(res, 404, { error: { message: `Invalid URL (POST ${path})`, type: "invalid_request_error", code: null } });
    }
    if (auth !== `Bearer ${key}`) {
      return send(res, 401, { error: { message: `Incorrect API key provided: ${auth.slice(7, 12)}****. You can find your API key at https://platform.openai.com/account/api-keys.`, type: "invalid_request_error", code: "invalid_api_key" } });
    }
    const next = queued.shift();
    if (next) return send(res, next.status, next.body, next.headers);
    if (/forbidden/i.test(String(body.prompt))) {
      return send(res, 400, { error: { message: "Your request was rejected as a result of our safety system.", type: "image_generation_user_error", code: "content_policy_violation" } });
    }
    const size = typeof body.size === "string" && body.size !== "auto" ? body.size : "1024x1024";
    const [w, h] = size.split("x").map(Number);
    const n = Number(body.n ?? 1);
    const quality = typeof body.quality === "string" ? body.quality : "medium";
    send(res, 200, {
      created: Math.floor(Date.now() / 1000),
      data: Array.from({ length: n }, (_, i) => ({ b64_json: png(w, h, requests.length * 10 + i).toString("base64") })),
      output_format: "png",
      size,
      quality,
      usage: { input_tokens: 12, output_tokens: 4160, total_tokens: 4172, input_tokens_details: { text_tokens: 12, image_tokens: 0 } },
    });
  }

  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/v1`,
    key,
    requests,
    failNext: (...answers) => queued.push(...answers),
    close: () => new Promise((r) => server.close(() => r())),
  };
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

/** A real PNG of one colour (varied by `seed`), so each answer's bytes differ. */
export function png(width: number, height: number, seed = 0): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (b: Buffer) => {
    let c = 0xffffffff;
    for (const x of b) c = crcTable[(c ^ x) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const c = Buffer.alloc(4);
    c.writeUInt32BE(crc(td));
    return Buffer.concat([len, td, c]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  const row = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x++) row.set([(seed * 37) & 255, (seed * 91) & 255, (seed * 53) & 255], 1 + x * 3);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", ihdr), chunk("IDAT", deflateSync(raw)), chunk("IEND", Buffer.alloc(0))]);
}
