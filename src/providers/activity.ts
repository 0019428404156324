// What the agent did during one turn, kept with its reply message (SHAPES.md `activity`):
// tool calls with their status, files and diffs, plans and thoughts, in arrival order and
// compact (thought chunks merged, a tool call's updates merged into its one entry, texts capped).

import { imageOfLink, type ImageRef } from "./image-link.ts";

const DIFF_CAP = 20_000;
const OUTPUT_CAP = 2_000;
const THOUGHT_CAP = 20_000;
const MAX_ENTRIES = 500;

export type ToolStatus = "pending" | "in_progress" | "completed" | "failed";
export interface ToolEntry {
  kind: "tool";
  id: string;
  title: string;
  toolKind: string;
  status: ToolStatus;
  locations?: string[];
  diffs?: { path: string; oldText?: string | null; newText: string }[];
  output?: string;
  relay?: { action: string; relay: string; session?: string };
}
export type ActivityEntry =
  | ToolEntry
  | { kind: "thought"; text: string }
  | { kind: "plan"; entries: { content: string; status: string; priority?: string }[] };

export interface Usage {
  inputTokens?: number;
  outputTokens?: number;
  cachedTokens?: number;
  costUsd?: number;
}

const obj = (v: unknown): Record<string, unknown> =>
  v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const cap = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…` : s);
const STATUSES = new Set(["pending", "in_progress", "completed", "failed"]);

/** relay_tool seen through each CLI: Claude `mcp__relay__relay_tool`, Copilot `relay-relay_tool`,
 * Grok `use_tool` with `relay__relay_tool`; the arguments hold `action` and `relay`. */
function relayCall(title: string, rawInput: unknown): ToolEntry["relay"] | undefined {
  const input = obj(rawInput);
  const named =
    /relay_tool|remote_relay/.test(title) || /relay_tool|remote_relay/.test(JSON.stringify(input).slice(0, 500));
  if (!named) return undefined;
  // The arguments may sit one level down (Grok's use_tool wraps them).
  const args = [input, ...Object.values(input).map(obj)].find((a) => typeof a.action === "string");
  if (!args) return undefined;
  return {
    action: String(args.action),
    relay: str(args.relay) ?? "this",
    ...(str(args.session) ? { session: str(args.session) } : {}),
  };
}

function firstLineJson(text: string | undefined): unknown {
  try {
    return text?.startsWith("{") ? JSON.parse(text.split("\n", 1)[0]) : undefined;
  } catch {
    return undefined;
  }
}

export class ActivityLog {
  private entries: ActivityEntry[] = [];
  private tools = new Map<string, ToolEntry>();
  usage: Usage = {};
  images: ImageRef[] = [];

  /** One session/update; returns whether it was something kept. */
  add(update: Record<string, unknown>): boolean {
    switch (update.sessionUpdate) {
      case "agent_thought_chunk": {
        const text = str(obj(update.content).text) ?? "";
        if (!text) return false;
        const last = this.entries.at(-1);
        if (last?.kind === "thought") last.text = cap(last.text + text, THOUGHT_CAP);
        else this.push({ kind: "thought", text: cap(text, THOUGHT_CAP) });
        return true;
      }
      case "plan": {
        const entries = (Array.isArray(update.entries) ? update.entries : []).map(obj).map((e) => ({
          content: cap(str(e.content) ?? "", 500),
          status: str(e.status) ?? "pending",
          ...(str(e.priority) ? { priority: str(e.priority) } : {}),
        }));
        // A plan update replaces the plan: the latest one stands where the plan first appeared.
        const plan = this.entries.find((e) => e.kind === "plan");
        if (plan && plan.kind === "plan") plan.entries = entries;
        else this.push({ kind: "plan", entries });
        return true;
      }
      case "tool_call":
      case "tool_call_update":
        return this.tool(update);
      case "agent_message_chunk": {
        // An image file the agent made (a resource_link chunk): meta.images (SHAPES.md).
        const image = imageOfLink(update.content);
        if (image) this.images.push(image);
        return !!image;
      }
      case "usage_update":
        return false; // cumulative per session: the worker turns it into this turn's cost
      default:
        return false;
    }
  }

  private tool(u: Record<string, unknown>): boolean {
    const id = str(u.toolCallId);
    if (!id) return false;
    let t = this.tools.get(id);
    if (!t) {
      t = { kind: "tool", id, title: "", toolKind: "other", status: "pending" };
      this.tools.set(id, t);
      this.push(t);
    }
    if (str(u.title)) t.title = cap(str(u.title)!, 300);
    if (str(u.kind)) t.toolKind = str(u.kind)!;
    if (STATUSES.has(String(u.status))) t.status = u.status as ToolStatus;
    if (Array.isArray(u.locations)) {
      const paths = u.locations.map((l) => str(obj(l).path)).filter((p): p is string => !!p);
      if (paths.length) t.locations = [...new Set([...(t.locations ?? []), ...paths])].slice(0, 50);
    }
    if (Array.isArray(u.content)) {
      for (const c of u.content.map(obj)) {
        if (c.type === "diff" && str(c.path)) {
          const d = {
            path: str(c.path)!,
            oldText: typeof c.oldText === "string" ? cap(c.oldText, DIFF_CAP) : null,
            newText: cap(str(c.newText) ?? "", DIFF_CAP),
          };
          t.diffs = [...(t.diffs ?? []).filter((x) => x.path !== d.path), d].slice(-20);
        } else if (c.type === "content") {
          const text = str(obj(c.content).text);
          if (text) t.output = cap((t.output ? `${t.output}\n` : "") + text, OUTPUT_CAP);
        }
      }
    }
    // Gemini CLI sends no rawInput: the call's arguments are the first line of its content.
    const relay = relayCall(t.title, u.rawInput) ?? relayCall(t.title, firstLineJson(t.output));
    if (relay) t.relay = relay;
    return true;
  }

  private push(e: ActivityEntry): void {
    if (this.entries.length < MAX_ENTRIES) this.entries.push(e);
  }

  get list(): ActivityEntry[] {
    return this.entries;
  }

  /** What the reply message's meta gets: only what there is. */
  meta(): { activity?: ActivityEntry[]; usage?: Usage; images?: ImageRef[] } {
    return {
      ...(this.entries.length ? { activity: this.entries } : {}),
      ...(Object.keys(this.usage).length ? { usage: this.usage } : {}),
      ...(this.images.length ? { images: this.images } : {}),
    };
  }
}

/** read_session's compact line per tool: `🛰️ send ✓`, `Edit src/a.ts ✓`. */
export function activitySummary(activity: unknown): string[] {
  if (!Array.isArray(activity)) return [];
  const mark: Record<string, string> = { completed: "✓", failed: "✗", in_progress: "…", pending: "…" };
  return activity
    .map(obj)
    .filter((e) => e.kind === "tool")
    .map((e) => {
      const r = obj(e.relay);
      const title = r.action
        ? `🛰️ relay_tool ${String(r.action)}${r.session ? ` ${String(r.session)}` : ""}`
        : String(e.title || e.toolKind || "tool");
      return `${title} ${mark[String(e.status)] ?? ""}`.trim();
    })
    .slice(0, 30);
}
