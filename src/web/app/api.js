// The owner token and every call to the owner API. The token arrives once in the URL
// fragment (#token=…, never sent to the server by the browser), is kept in this tab's
// sessionStorage and taken out of the address bar so it does not land in history,
// bookmarks or screenshots.

const KEY = "oar.ownerToken";

/** Reads #token=… (and #session=…) from the fragment; returns the session to open, if any. */
export function takeTokenFromUrl() {
  const params = new URLSearchParams(location.hash.replace(/^#/, ""));
  const token = params.get("token");
  if (!token) return null;
  sessionStorage.setItem(KEY, token.trim());
  params.delete("token");
  const rest = params.toString();
  history.replaceState(null, "", location.pathname + location.search + (rest ? `#${rest}` : ""));
  return params.get("session");
}

export const getToken = () => sessionStorage.getItem(KEY) ?? "";
export const setToken = (t) => sessionStorage.setItem(KEY, t.trim());
export const forgetToken = () => sessionStorage.removeItem(KEY);

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** fetch /api/… with the bearer token; resolves the JSON, throws ApiError with the relay's own wording. */
export async function api(method, path, body, as = "json") {
  const init = { method, headers: { authorization: `Bearer ${getToken()}` } };
  if (body !== undefined) {
    init.headers["content-type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch {
    throw new ApiError(0, "NETWORK", "The relay cannot be reached.");
  }
  if (res.ok && as === "blob") return res.blob();
  const text = await res.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {}
  if (!res.ok) throw new ApiError(res.status, json?.code ?? "HTTP", json?.error ?? `The relay answered ${res.status}.`);
  return json;
}

/** The live stream. EventSource cannot send headers and the owner token must not ride in a
 * URL, so the page trades it for a short-lived ticket (POST /api/stream-ticket) and opens the
 * stream with that; when the stream is refused (the ticket ran out) it asks for a new one. */
export function openStream(onChange, onState) {
  let es = null;
  let closed = false;
  const connect = async () => {
    let ticket;
    try {
      ticket = (await api("POST", "/api/stream-ticket")).ticket;
    } catch {
      onState("reconnecting");
      if (!closed) setTimeout(connect, 3000);
      return;
    }
    if (closed) return;
    es = new EventSource(`/api/stream?ticket=${encodeURIComponent(ticket)}`);
    es.addEventListener("open", () => onState("open"));
    es.addEventListener("hello", () => onState("open"));
    es.addEventListener("error", () => {
      if (es.readyState !== EventSource.CLOSED) return onState("reconnecting");
      onState("reconnecting");
      if (!closed) setTimeout(connect, 1000);
    });
    es.addEventListener("change", (ev) => {
      try {
        onChange(JSON.parse(ev.data));
      } catch {}
    });
    // A streamed chunk of a reply (SHAPES.md turn.delta): appended, not re-fetched.
    es.addEventListener("turn.delta", (ev) => {
      try {
        onChange({ type: "turn.delta", ...JSON.parse(ev.data) });
      } catch {}
    });
  };
  connect();
  return {
    close() {
      closed = true;
      es?.close();
    },
  };
}
