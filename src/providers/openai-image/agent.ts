// The `openai-image` provider: our own ACP agent process over the OpenAI Images API. Each
// prompt generates images, or edits an earlier one of the conversation (intent.ts); the files
// go to `<cwd>/images/`, the reply lists them (path, size, bytes), and each image is also sent
// as an ACP `resource_link` chunk so the relay keeps it in the reply's `meta.images`.
// Launched by the relay with OPENAI_API_KEY and OPENAI_BASE_URL from the owner's settings.
// stdout belongs to ACP; logs go to stderr.
import { randomUUID } from "node:crypto";
import { existsSync, realpathSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import type * as acp from "@agentclientprotocol/sdk";
import { PROTOCOL_VERSION, RequestError, serveAcp, type Peer } from "../agent-acp.ts";
import {
  configOptions,
  DEFAULT_OPTIONS,
  setOption,
  turnOptions,
  type ImageOptions,
  type TurnOptions,
} from "./options.ts";
import { decide, type Intent } from "./intent.ts";
import { basename, join } from "node:path";
import { isInside, readInside } from "../../core/paths.ts";
import { Gallery, type SavedImage } from "./gallery.ts";
import type * as ImagesApi from "./images-api.ts";

/** The OpenAI SDK is loaded by the first prompt, not at start: a worker waiting for its
 * first prompt (or never sent one) does not carry it. */
const imagesApi = (): Promise<typeof ImagesApi> => import("./images-api.ts");

interface Session {
  id: string;
  cwd: string;
  options: ImageOptions;
  effort?: string;
  gallery: Gallery;
  running: Set<AbortController>;
}

const sessions = new Map<string, Session>();
const log = (s: string) => process.stderr.write(`[oar-openai-image] ${s}\n`);
const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);
const oarMeta = (meta: { [k: string]: unknown } | null | undefined): Record<string, unknown> =>
  meta?.oar && typeof meta.oar === "object" ? (meta.oar as Record<string, unknown>) : {};

function openSession(id: string, params: { cwd: string; _meta?: { [k: string]: unknown } | null }): Session {
  const meta = oarMeta(params._meta);
  const session: Session = {
    id,
    cwd: params.cwd,
    options: { ...DEFAULT_OPTIONS, model: str(meta.model) ?? DEFAULT_OPTIONS.model },
    effort: str(meta.effort),
    gallery: new Gallery(params.cwd, str(meta.sessionId) ?? id),
    running: new Set(),
  };
  sessions.set(id, session);
  return session;
}

/** An image the client attached to the prompt as a file link inside the session's folder. */
function attachedImage(prompt: acp.ContentBlock[], cwd: string): string | null {
  for (const b of prompt) {
    if (b.type !== "resource_link" || !b.uri.startsWith("file:")) continue;
    const path = fileURLToPath(b.uri);
    if (existsSync(path) && isInside(realpathSync(cwd), realpathSync(path))) return realpathSync(path);
  }
  return null;
}

function replyText(intent: Intent, o: TurnOptions, saved: SavedImage[], cwd: string): string {
  const what =
    intent.kind === "edit"
      ? `Edited ${intent.image.startsWith(cwd) ? intent.image.slice(cwd.length + 1) : intent.image}`
      : "Generated";
  const head = `${what}: ${saved.length} image${saved.length === 1 ? "" : "s"} with ${o.model} (size ${o.size}, quality ${o.quality}).`;
  const lines = saved.map((i) => `- ${i.path} (${i.size ?? o.size}, ${i.bytes.toLocaleString("en-US")} bytes)`);
  return [head, ...lines].join("\n");
}

/** A turn refused before anything was sent, worded for the owner (turn-errors.ts keeps the words). */
const refused = (message: string) => new RequestError(-32603, message, { oar: { kind: "config" } });

/** The turn's end; with the tokens the Images API reported (ACP's prompt-response `usage`). */
type PromptEnd = {
  stopReason: acp.StopReason;
  usage?: { inputTokens: number; outputTokens: number; totalTokens: number };
};

/** Relay header lines (an agent's prompt, a schedule) are for the reader, not for the image model. */
const RELAY_HEADER = /^\[(?:Remote prompt from an agent|Prompt from an agent|relay schedule|relay event)\b[^\n]*\]\s*$/;

async function runPrompt(
  session: Session,
  params: acp.PromptRequest,
  client: Peer,
  signal: AbortSignal,
): Promise<PromptEnd> {
  const meta = oarMeta(params._meta);
  session.options.model = str(meta.model) ?? session.options.model;
  session.effort = str(meta.effort) ?? session.effort;
  const text = (params.prompt ?? [])
    .flatMap((b) => (b.type === "text" ? [b.text] : []))
    .join("\n")
    .split("\n")
    .filter((l) => !RELAY_HEADER.test(l))
    .join("\n")
    .trim();
  if (!text)
    throw new RequestError(
      -32602,
      "The prompt is empty: describe the image to make or the change to the last one. No image was made.",
      { oar: { kind: "protocol" } },
    );
  const apiKey = process.env.OPENAI_API_KEY;
  if (!apiKey)
    throw new RequestError(
      -32603,
      "OpenAI Image has no API key: add one in Settings → Providers (openaiApiKey). No image was made.",
      { oar: { kind: "auth" } },
    );
  const { Cancelled, ImagesFailure, openaiClient, requestImages } = await imagesApi();
  const { root } = session.gallery;
  const folder = session.gallery.folder();
  if (!folder)
    throw refused(
      `The images folder ${join(root, "images")} is a link that leads outside the session's folder ${root}: OpenAI Image writes images only inside it. Remove the link; no image was made.`,
    );
  const o = turnOptions(session.options, session.effort, text);
  const intent = decide(
    text,
    session.cwd,
    session.gallery.last?.path ?? null,
    attachedImage(params.prompt, session.cwd),
  );
  // The one place an image is read for upload: inside the folder, links resolved, whatever
  // named it (the prompt, an attachment, or the gallery list, which anyone may edit).
  let upload: { bytes: Buffer; name: string } | null = null;
  if (intent.kind === "edit") {
    const read = readInside(root, intent.image);
    const which = intent.named
      ? intent.image
      : `${intent.image} (the conversation's last image, as ${session.gallery.listName} names it)`;
    if ("refused" in read && read.refused === "outside") {
      throw refused(
        `${which} leads outside the session's folder ${root}: OpenAI Image sends only files inside it to OpenAI. Nothing was sent and no image was made; name an image inside the folder, or ask for a new one.`,
      );
    }
    if ("refused" in read)
      throw refused(`${which} is no longer there. No image was made; name another image, or ask for a new one.`);
    upload = { bytes: read.bytes, name: basename(read.path) };
  }
  log(`${intent.kind} with ${o.model} (${o.size}, ${o.quality}, n=${o.n})`);
  const client_ = openaiClient(apiKey, process.env.OPENAI_BASE_URL || "https://api.openai.com/v1");
  let result: Awaited<ReturnType<typeof requestImages>>;
  try {
    result = await requestImages(client_, text, o, upload, signal);
  } catch (err) {
    if (err instanceof Cancelled) return { stopReason: "cancelled" };
    // Worded for the owner; the relay keeps the words (turn-errors.ts). -32603: not ACP's "auth required".
    throw new RequestError(-32603, (err as Error).message, {
      oar: { kind: err instanceof ImagesFailure ? err.kind : "protocol" },
    });
  }
  if (signal.aborted) return { stopReason: "cancelled" };
  const saved = session.gallery.save(folder, result.b64s, result.format, new Date());
  for (const img of saved) {
    await client.notify("session/update", {
      sessionId: session.id,
      update: {
        sessionUpdate: "agent_message_chunk",
        content: {
          type: "resource_link",
          uri: pathToFileURL(img.path).href,
          name: img.path.split("/").pop()!,
          mimeType: img.mimeType,
          size: img.bytes,
          ...(img.size ? { _meta: { oar: { size: img.size } } } : {}),
        },
      },
    });
  }
  await client.notify("session/update", {
    sessionId: session.id,
    update: {
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text: replyText(intent, o, saved, root) },
    },
  });
  const u = result.usage;
  const end: PromptEnd = { stopReason: "end_turn" };
  if (u?.inputTokens !== undefined || u?.outputTokens !== undefined) {
    end.usage = {
      inputTokens: u?.inputTokens ?? 0,
      outputTokens: u?.outputTokens ?? 0,
      totalTokens: (u?.inputTokens ?? 0) + (u?.outputTokens ?? 0),
    };
  }
  return end;
}

const done = serveAcp(
  {
    requests: {
      initialize: (params: { protocolVersion?: number }) => ({
        protocolVersion: params.protocolVersion ?? PROTOCOL_VERSION,
        agentCapabilities: { loadSession: false, promptCapabilities: { image: false, embeddedContext: false } },
        agentInfo: { name: "oar-openai-image", version: "1.0.0" },
      }),
      "session/new": (params: acp.NewSessionRequest) => {
        const s = openSession(randomUUID(), params);
        return { sessionId: s.id, configOptions: configOptions(s.options) };
      },
      "session/set_config_option": (params: acp.SetSessionConfigOptionRequest) => {
        const s = sessions.get(params.sessionId);
        if (!s) throw RequestError.resourceNotFound(params.sessionId);
        const bad = setOption(s.options, params.configId, (params as { value?: unknown }).value);
        if (bad) throw RequestError.invalidParams(undefined, bad);
        return { configOptions: configOptions(s.options) };
      },
      "session/prompt": async (params: acp.PromptRequest, client: Peer, signal: AbortSignal) => {
        const s = sessions.get(params.sessionId);
        if (!s) throw RequestError.resourceNotFound(params.sessionId);
        const controller = new AbortController();
        const onAbort = () => controller.abort();
        signal.addEventListener("abort", onAbort, { once: true });
        s.running.add(controller);
        try {
          const end = await runPrompt(s, params, client, controller.signal);
          return end;
        } finally {
          s.running.delete(controller);
          signal.removeEventListener("abort", onAbort);
        }
      },
    },
    notifications: {
      "session/cancel": (params: { sessionId?: string }) => {
        for (const c of sessions.get(params.sessionId ?? "")?.running ?? []) c.abort();
      },
    },
  },
  process.stdin,
  process.stdout,
);
process.stdin.on("end", () => process.exit(0));
void done.then(() => process.exit(0));
// The relay closed our stdout (EPIPE): nobody is listening any more.
process.stdout.on("error", () => process.exit(0));
