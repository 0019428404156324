import { readFileSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import { createTwoFilesPatch } from "diff";

// What a CLI's permission request would do, whole (contract §10.3): the command it would
// run and what for, the files it would touch, and the diff of an edit, as a card's `detail`.
// Built from the ACP tool call as the CLI sent it (rawInput, locations, content of type
// "diff"). A real CLI sends an edit as the fragment it replaces (Claude Code's Edit:
// old_string → new_string); where the file lies in the session's folder the diff is made
// against the file itself, so it has the file's line numbers and context. Only input the
// lines above do not already say is shown as JSON. Copilot sends an edit's unified diff in
// its input, shown as the diff it is.

interface ToolCallLike {
  title?: string | null;
  kind?: string | null;
  rawInput?: unknown;
  locations?: { path?: unknown }[] | null;
  content?: unknown;
}

const obj = (v: unknown): Record<string, unknown> =>
  v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const str = (v: unknown): string => (typeof v === "string" ? v : "");

/** Input fields the lines above the JSON already say. */
const SHOWN_COMMAND = ["command", "cmd"];
const SHOWN_EDIT = ["file_path", "path", "fileName", "old_string", "new_string", "content", "replace_all", "diff"];

/** `cwd`: the session's folder; a file in it is read to make an edit's diff whole. */
export function permissionDetail(tool: ToolCallLike, cwd?: string | null): string {
  const input = obj(tool.rawInput);
  const command =
    str(input.command) || str(input.cmd) || (Array.isArray(input.command) ? input.command.map(String).join(" ") : "");
  const title = (tool.title ?? "").replace(/^`|`$/g, "");
  // A shell tool's title is often the command itself: the line names the kind instead.
  const name = command && title && command.includes(title) ? `shell command (${tool.kind ?? "execute"})` : title;
  const lines: string[] = [`Tool: ${name || tool.kind || "a tool"}`];
  if (command) lines.push(`Command: ${command}`);
  if (str(input.description)) lines.push(`Description: ${str(input.description)}`);
  const files = [...new Set((tool.locations ?? []).map((l) => str(l?.path)).filter(Boolean))];
  if (files.length) lines.push(`Files: ${files.join(", ")}`);

  const read = (path: string) => fileInside(cwd, path);
  const all = input.replace_all === true;
  // An edit's diff: as the CLI sent it in the tool call's content, else from its input
  // (Claude's Edit sends file_path, old_string, new_string; its Write file_path, content).
  const diffs = (Array.isArray(tool.content) ? tool.content : [])
    .map(obj)
    .filter((c) => c.type === "diff" && str(c.path));
  const patches = diffs.map((c) => edit(str(c.path), c.oldText, str(c.newText), all, read));
  const path = str(input.file_path) || str(input.path);
  const newText = typeof input.new_string === "string" ? input.new_string : input.content;
  if (!patches.length && path && typeof newText === "string") {
    patches.push(edit(path, input.old_string, newText, all, read));
  }
  // Copilot's edit sends the unified diff itself (fileName, diff).
  const given = str(input.diff);
  if (!patches.length && /^@@ /m.test(given)) patches.push(fromHeaders(given));
  if (patches.length) lines.push("", ...patches);

  // Copilot's shell tool also lists the commands of its command line, each already in it.
  const listed =
    Array.isArray(input.commands) && input.commands.every((c) => typeof c === "string" && command.includes(c));
  const shown = new Set([
    ...(command ? SHOWN_COMMAND : []),
    ...(command && listed ? ["commands"] : []),
    ...(str(input.description) ? ["description"] : []),
    ...(patches.length ? SHOWN_EDIT : []),
  ]);
  const rest = Object.fromEntries(Object.entries(input).filter(([k]) => !shown.has(k)));
  const raw =
    tool.rawInput == null
      ? undefined
      : tool.rawInput === input
        ? Object.keys(rest).length
          ? rest
          : undefined
        : tool.rawInput;
  if (raw !== undefined) lines.push("", "Input:", JSON.stringify(raw, null, 2));
  return lines.join("\n");
}

/** The diff of one edit: against the file as it is when the fragment is found in it (or the
 * file is overwritten whole), else of the fragment alone; a new file is all added lines. */
function edit(
  path: string,
  oldText: unknown,
  newText: string,
  all: boolean,
  read: (p: string) => string | null,
): string {
  const current = read(path);
  const old = typeof oldText === "string" ? oldText : null;
  if (current != null && (old == null || old === "")) return patch(path, current, newText);
  if (current != null && old && current.includes(old)) {
    const after = all ? current.split(old).join(newText) : current.replace(old, () => newText);
    return patch(path, current, after);
  }
  return patch(path, old ?? "", newText);
}

const MAX_READ = 1 << 20;

/** The text of a file inside the session's folder (links resolved), or null: nothing outside
 * it is read, nor anything large. */
function fileInside(cwd: string | null | undefined, path: string): string | null {
  if (!cwd) return null;
  try {
    const root = realpathSync(cwd);
    const real = realpathSync(resolve(root, path));
    const rel = relative(root, real);
    if (!rel || rel.startsWith("..") || isAbsolute(rel)) return null;
    const st = statSync(real);
    if (!st.isFile() || st.size > MAX_READ) return null;
    return readFileSync(real, "utf8");
  } catch {
    return null;
  }
}

function patch(path: string, oldText: string, newText: string): string {
  return fromHeaders(createTwoFilesPatch(path, path, oldText, newText, "", "", { context: 3 }));
}

/** A unified diff from its `---` line on: no "Index:" or "diff --git" banner before it. */
function fromHeaders(diff: string): string {
  const lines = diff.split("\n");
  const at = lines.findIndex((l) => l.startsWith("--- "));
  return lines.slice(Math.max(0, at)).join("\n").replace(/^\n+/, "").trimEnd();
}
