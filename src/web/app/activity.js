// What the agent did during a reply, from the reply message's `meta` (SHAPES.md): tool calls
// as one line each with their status that opens to details and file diffs, thoughts and
// plans folded, relay_tool lines naming sessions by title, images, and the turn's tokens and cost.
import { h, icon } from "./dom.js";
import { withTitles } from "./titles.js";
import { diffView } from "./diff-view.js";
import { api } from "./api.js";

const STATUS = {
  pending: ["○", "pending"],
  in_progress: ["◐", "running"],
  completed: ["✓", "done"],
  failed: ["✗", "failed"],
};

function toolEntry(t) {
  const [mark, word] = STATUS[t.status] ?? ["•", t.status ?? ""];
  const relay = t.relay;
  const title = relay
    ? withTitles(
        `${relay.action} → ${relay.relay === "this" ? "this relay" : relay.relay}${relay.session ? ` session ${relay.session}` : ""}`,
      )
    : t.title || t.toolKind || "tool";
  const body = [
    t.locations?.length
      ? h(
          "ul",
          { class: "tool-locs" },
          t.locations.map((l) => h("li", {}, h("code", {}, l))),
        )
      : null,
    ...(t.diffs ?? []).map((d) => diffView(d)),
    t.output ? h("pre", { class: "tool-json", tabindex: 0 }, t.output) : null,
  ].filter(Boolean);
  const head = h(
    "summary",
    {},
    icon(relay ? "radio-tower" : toolIcon(t.toolKind), "tool-icon"),
    h("span", { class: "tool-title" }, title),
    t.diffs?.length
      ? h("span", { class: "tool-files" }, `${t.diffs.length} file${t.diffs.length === 1 ? "" : "s"}`)
      : null,
    h("span", { class: `tool-status st-${t.status}` }, h("span", { "aria-hidden": "true" }, `${mark} `), word),
  );
  return h(
    "details",
    { class: `tool-call act-tool${t.status === "failed" ? " tool-failed" : ""}${relay ? " act-relay" : ""}` },
    head,
    body.length ? body : h("p", { class: "empty-note" }, "No details."),
  );
}

const KIND_ICON = {
  read: "file-text",
  edit: "pencil",
  delete: "trash-2",
  move: "arrow-right",
  search: "search",
  execute: "terminal",
  think: "brain",
  fetch: "globe",
};
const toolIcon = (kind) => KIND_ICON[kind] ?? "wrench";

function thought(t) {
  return h(
    "details",
    { class: "act-thought" },
    h("summary", {}, icon("brain"), "Thought"),
    h("p", { class: "msg-text" }, t.text),
  );
}

function plan(p) {
  const mark = { completed: "✓", in_progress: "◐", pending: "○" };
  const entries = p.entries ?? [];
  return h(
    "details",
    { class: "act-plan" },
    h(
      "summary",
      {},
      icon("list-checks"),
      `Plan · ${entries.filter((e) => e.status === "completed").length}/${entries.length} done`,
    ),
    h(
      "ul",
      { class: "plan-list" },
      entries.map((e) =>
        h(
          "li",
          { class: `plan-${e.status}` },
          h("span", { "aria-hidden": "true" }, `${mark[e.status] ?? "•"} `),
          e.content,
          h("span", { class: "sr-only" }, ` (${e.status})`),
        ),
      ),
    ),
  );
}

export function activityNode(activity) {
  if (!Array.isArray(activity) || !activity.length) return null;
  const items = activity
    .map((a) =>
      a.kind === "tool" ? toolEntry(a) : a.kind === "thought" ? thought(a) : a.kind === "plan" ? plan(a) : null,
    )
    .filter(Boolean);
  return items.length
    ? h(
        "div",
        { class: "activity", role: "list", "aria-label": "What the agent did" },
        items.map((x) => h("div", { role: "listitem" }, x)),
      )
    : null;
}

const n = (x) => Number(x).toLocaleString();
/** "1,234 in · 567 out · 89 cached · $0.0123" */
export function usageText(u) {
  if (!u) return "";
  return [
    u.inputTokens != null ? `${n(u.inputTokens)} in` : null,
    u.outputTokens != null ? `${n(u.outputTokens)} out` : null,
    u.cachedTokens ? `${n(u.cachedTokens)} cached` : null,
    u.costUsd != null ? `$${Number(u.costUsd).toFixed(u.costUsd < 1 ? 4 : 2)}` : null,
  ]
    .filter(Boolean)
    .join(" · ");
}

/** Images the agent made: fetched with the owner token (an <img> cannot send it), shown from a blob. */
export function imagesNode(sessionId, images) {
  if (!Array.isArray(images) || !images.length) return null;
  return h(
    "div",
    { class: "msg-images" },
    images.map((im) => {
      const name = String(im.path ?? "")
        .split("/")
        .pop();
      const img = h("img", { class: "msg-image", alt: `Image ${name}`, loading: "lazy" });
      const fig = h("figure", { class: "msg-figure" }, img, h("figcaption", {}, name, im.size ? ` · ${im.size}` : ""));
      api(
        "GET",
        `/api/sessions/${encodeURIComponent(sessionId)}/files?path=${encodeURIComponent(im.path)}`,
        undefined,
        "blob",
      )
        .then((blob) => (img.src = URL.createObjectURL(blob)))
        .catch((e) => fig.append(h("p", { class: "msg-error" }, `The image could not be shown: ${e.message}`)));
      return fig;
    }),
  );
}
