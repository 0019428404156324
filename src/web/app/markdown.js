// Markdown for agent replies: marked renders, DOMPurify sanitizes what it made (both pinned
// npm packages, served from node_modules as /app/vendor-*.js). Raw HTML in a reply is shown
// as text, never as markup; links open outside the page without a referrer.
import { Marked } from "./vendor-marked.js";
import DOMPurify from "./vendor-purify.js";

const escape = (s) => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);

const marked = new Marked({
  gfm: true,
  breaks: true,
  renderer: {
    html: (token) => escape(token.text ?? token.raw ?? ""),
    // Remote images would load from anywhere; the CSP refuses them anyway: show the link.
    image: (token) => `<a href="${escape(token.href ?? "")}">${escape(token.text || token.href || "image")}</a>`,
  },
});

DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A") {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer");
  }
});

const PURIFY = { RETURN_DOM_FRAGMENT: true, FORBID_TAGS: ["style", "form", "input", "button", "img", "iframe", "svg", "math"], FORBID_ATTR: ["style"] };

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
  for (const pre of div.querySelectorAll("pre")) pre.tabIndex = 0; // scrollable code, reachable by keyboard
  return div;
}
