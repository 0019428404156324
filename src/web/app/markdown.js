// Markdown for agent replies: marked renders, DOMPurify sanitizes what it made (both pinned
// npm packages, served from node_modules as /app/vendor-*.js). Raw HTML in a reply is shown
// as text, never as markup; links open outside the page without a referrer.
import { Marked } from "./vendor-marked.js";
import DOMPurify from "./vendor-purify.js";
import { h, copyButton } from "./dom.js";

let hljs = null;
/** highlight.js with the languages the relay serves, loaded the first time a reply has code. */
const loadHljs = () => (hljs ??= import("./vendor-hljs.js").then((m) => m.default));
const HIGHLIGHT_MAX = 20_000;

/** Colours a code block in place (highlight.js escapes what it writes); plain when it cannot. */
function colour(code) {
  const text = code.textContent;
  if (text.length > HIGHLIGHT_MAX) return;
  const lang = /language-([\w+-]+)/.exec(code.className)?.[1];
  loadHljs().then(
    (lib) => {
      if (!code.isConnected && !code.parentNode) return;
      const known = lang && lib.getLanguage(lang);
      const r = known ? lib.highlight(text, { language: lang, ignoreIllegals: true }) : lib.highlightAuto(text);
      if (!known && r.relevance < 5) return;
      code.innerHTML = r.value;
      code.classList.add("hljs");
    },
    () => {},
  );
}

const escapeHtml = (s) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);

const marked = new Marked({
  gfm: true,
  breaks: true,
  renderer: {
    html: (token) => escapeHtml(token.text ?? token.raw ?? ""),
    // Remote images would load from anywhere; the CSP refuses them anyway: show the link.
    image: (token) =>
      `<a href="${escapeHtml(token.href ?? "")}">${escapeHtml(token.text || token.href || "image")}</a>`,
  },
});

DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A") {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer");
  }
});

const PURIFY = {
  RETURN_DOM_FRAGMENT: true,
  FORBID_TAGS: ["style", "form", "input", "button", "img", "iframe", "svg", "math"],
  FORBID_ATTR: ["style"],
};

/** The reply's text as sanitized Markdown, in a div.md. */
export function markdown(text) {
  const div = document.createElement("div");
  div.className = "md";
  let html;
  try {
    html = marked.parse(text, { async: false });
  } catch {
    div.textContent = text;
    return div;
  }
  div.append(DOMPurify.sanitize(html, PURIFY));
  for (const pre of div.querySelectorAll("pre")) {
    pre.tabIndex = 0; // scrollable code, reachable by keyboard
    const code = pre.querySelector("code");
    const box = h("div", { class: "code-block" });
    pre.replaceWith(box);
    box.append(
      pre,
      copyButton(() => (code ?? pre).textContent, "Copy code"),
    );
    if (code) colour(code);
  }
  return div;
}
