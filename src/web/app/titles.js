// How the page names things the relay names by id or ISO time (relay_tool lines, events).
import { fmtTime } from "./dom.js";

/** Session titles the page knows (main.js sets it): relay_tool lines name sessions by title. */
let titleOf = () => null;
let version = 0;
export function setTitleLookup(fn) {
  titleOf = fn;
}
/** Called when the titles the page knows changed: lines drawn before are drawn again. */
export function titlesChanged() {
  version++;
}
export const titlesVersion = () => version;
/** A line as the page tells it: "ses_…" becomes “Title” where the title is known, and an ISO
 * time the relay wrote becomes the page's one local form. */
export const withTitles = (text) =>
  String(text)
    // 'session "Title" (ses_…)': the title says it already.
    .replace(/("[^"\n]*") \((ses_[a-z0-9]+)\)/g, "$1")
    .replace(/\b(?:session )?(ses_[a-z0-9]+)\b/g, (all, id) => {
      const t = titleOf(id);
      return t ? `session “${t}”` : all;
    })
    .replace(/\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?Z\b/g, (iso) => fmtTime(iso) || iso);
