import { type Channel, cutBytes, outcomeOf } from "./channel.ts";
import type { Sender } from "./sender.ts";
import type { NotifySettings } from "../core/notify-settings.ts";

// ntfy (contract §10.3): `POST ntfyUrl` (a topic's address; secret, since whoever knows it
// reads the topic) with the text as body and Title, Click and Priority headers.

export interface NtfyDeps {
  send: Sender;
  settings: () => NotifySettings;
}

/** ntfy keeps a message up to 4096 bytes as text (longer ones become attachments). */
const MAX_BODY = 4000;

/** HTTP header values are bytes; ntfy (2.4+) decodes RFC 2047 encoded-words. */
export function headerText(text: string): string {
  const line = text.replace(/[\r\n]+/g, " ").slice(0, 250);
  return /^[\x20-\x7e]*$/.test(line) ? line : `=?UTF-8?B?${Buffer.from(line).toString("base64")}?=`;
}

export function ntfyChannel(d: NtfyDeps): Channel {
  return {
    name: "ntfy",
    targets: (s) => (s.ntfyUrl ? ["ntfy"] : []),
    async send(n) {
      const { ntfyUrl } = d.settings();
      if (!ntfyUrl) return { kind: "dropped", why: "no ntfyUrl is set any more" };
      const headers = {
        "Content-Type": "text/plain; charset=utf-8",
        Title: headerText(n.title),
        Click: n.url,
        // A finished turn is news; everything else waits for the owner.
        Priority: n.type === "turn_done" ? "default" : "high",
      };
      return outcomeOf(await d.send(ntfyUrl, { method: "POST", headers, body: cutBytes(n.body, MAX_BODY) }));
    },
  };
}
