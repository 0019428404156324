// Raw HTTP for tests that must control what a plain client would not: a body sent in chunks
// (no Content-Length) that may never end.
import { request } from "node:http";

/** POSTs `prefix` and then `mb` MB in chunks; with `end` the body then ends, else it stays open
 * (only a server that counts while reading answers then). Resolves with the answer. A fresh
 * socket each time: a server refusing a body closes the connection it came on. */
export function chunkedPost(
  baseUrl: string,
  path: string,
  headers: Record<string, string>,
  opts: { mb: number; end: boolean; prefix: string },
): Promise<{ status: number; json: any }> {
  const u = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        method: "POST",
        path,
        agent: false,
        headers: { ...headers, "content-type": "application/json", "transfer-encoding": "chunked" },
      },
      (res) => {
        answered = true;
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d) => (text += d));
        res.on("end", () => {
          req.destroy();
          let json: any = text;
          try {
            json = JSON.parse(text);
          } catch {}
          resolve({ status: res.statusCode!, json });
        });
      },
    );
    req.on("error", (e) => (answered ? undefined : reject(e)));
    const chunk = Buffer.alloc(256 * 1024, "a");
    let sent = 0;
    req.write(opts.prefix);
    const pump = () => {
      while (!answered && sent < opts.mb * 1024 * 1024) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once("drain", pump);
      }
      if (!answered && opts.end) req.end('"}');
    };
    pump();
  });
}
