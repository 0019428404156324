// The file tools: read, list (glob), search (regex), write, edit (exact string replace). Edits
// and writes carry the old and new text so the ACP tool call can show them as a diff.

import { closeSync, constants, existsSync, mkdirSync, openSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { confine, shown, ToolRefused } from "./paths.ts";
import { int, str, type Tool, type ToolContext } from "./types.ts";
import { globToRegExp, walkFiles } from "./walk.ts";

const MAX_READ_LINES = 2000;
const MAX_READ_CHARS = 120_000;
const MAX_LIST = 500;
const MAX_MATCHES = 200;
const MAX_SEARCH_FILE = 1_000_000;

const pathArg = {
  type: "string",
  description: "Path relative to the session's folder (absolute paths must lie inside it).",
};

// `abs` comes from confine() with every link resolved; O_NOFOLLOW refuses a link put in its
// place since (ELOOP) instead of following it out of the folder.
function readNoFollow(abs: string): string {
  const fd = openSync(abs, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    return readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
}

function writeNoFollow(abs: string, text: string): void {
  const fd = openSync(abs, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o666);
  try {
    writeFileSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/** Writes `text` to `abs` (a confined path): through the client when it offers that, else here. */
async function writeOut(abs: string, text: string, ctx: ToolContext): Promise<void> {
  if (ctx.writeText) {
    await ctx.writeText(abs, text);
    return;
  }
  mkdirSync(dirname(abs), { recursive: true });
  writeNoFollow(abs, text);
}

function readText(abs: string, p: string): string {
  if (!existsSync(abs)) throw new ToolRefused(`'${p}' does not exist.`);
  if (statSync(abs).isDirectory()) throw new ToolRefused(`'${p}' is a folder; use list_files.`);
  return readNoFollow(abs);
}

export const readFile: Tool = {
  name: "read_file",
  description:
    "Read a text file. Returns its lines (optionally a range: offset = first line, 1-based; limit = number of lines).",
  parameters: {
    type: "object",
    properties: { path: pathArg, offset: { type: "integer", minimum: 1 }, limit: { type: "integer", minimum: 1 } },
    required: ["path"],
  },
  kind: "read",
  writes: false,
  title: (a) => `Read ${str(a.path) ?? ""}`,
  locations: (a, cwd) => [confine(cwd, a.path)],
  async run(a, ctx) {
    const abs = confine(ctx.cwd, a.path);
    const lines = readText(abs, String(a.path)).split("\n");
    const from = Math.max(1, int(a.offset) ?? 1);
    const count = Math.min(int(a.limit) ?? MAX_READ_LINES, MAX_READ_LINES);
    let body = lines.slice(from - 1, from - 1 + count).join("\n");
    if (body.length > MAX_READ_CHARS)
      body = `${body.slice(0, MAX_READ_CHARS)}\n[… cut at ${MAX_READ_CHARS} characters]`;
    const to = Math.min(lines.length, from - 1 + count);
    const range = from === 1 && to === lines.length ? "" : ` (lines ${from}-${to} of ${lines.length})`;
    return { text: `${shown(ctx.cwd, abs)}${range}:\n${body}` };
  },
};

export const listFiles: Tool = {
  name: "list_files",
  description:
    "List files matching a glob (e.g. 'src/**/*.ts', '*.md'), relative to the session's folder. Skips .git and node_modules.",
  parameters: {
    type: "object",
    properties: {
      pattern: { type: "string", description: "Glob; default '**/*'." },
      path: { ...pathArg, description: "Folder to list under (default: the session's folder)." },
    },
  },
  kind: "search",
  writes: false,
  title: (a) => `List ${str(a.pattern) ?? "**/*"}${a.path ? ` in ${a.path}` : ""}`,
  async run(a, ctx) {
    const base = confine(ctx.cwd, str(a.path) || ".");
    const re = globToRegExp(str(a.pattern) || "**/*");
    const root = confine(ctx.cwd, ".");
    const { files } = walkFiles(root, base, 50_000, ctx.signal);
    const baseRel = shown(ctx.cwd, base);
    const prefix = baseRel === "." ? "" : `${baseRel}/`;
    const hits = files.filter((f) => f.startsWith(prefix) && re.test(f.slice(prefix.length)));
    const more = hits.length > MAX_LIST ? `\n[… ${hits.length - MAX_LIST} more]` : "";
    return { text: hits.length ? hits.slice(0, MAX_LIST).join("\n") + more : "No files match." };
  },
};

export const searchFiles: Tool = {
  name: "search_files",
  description:
    "Search file contents with a regular expression (JavaScript syntax). Returns 'path:line: text' per match.",
  parameters: {
    type: "object",
    properties: {
      pattern: { type: "string", description: "Regular expression." },
      glob: { type: "string", description: "Only files matching this glob (default all)." },
      ignore_case: { type: "boolean" },
    },
    required: ["pattern"],
  },
  kind: "search",
  writes: false,
  title: (a) => `Search ${JSON.stringify(str(a.pattern) ?? "")}${a.glob ? ` in ${a.glob}` : ""}`,
  async run(a, ctx) {
    let re: RegExp;
    try {
      re = new RegExp(str(a.pattern) ?? "", a.ignore_case ? "i" : "");
    } catch (e) {
      throw new ToolRefused(`Not a valid regular expression: ${(e as Error).message}`);
    }
    const only = str(a.glob) ? globToRegExp(str(a.glob)!) : null;
    const root = confine(ctx.cwd, ".");
    const out: string[] = [];
    for (const f of walkFiles(root, root, 50_000, ctx.signal).files) {
      if (only && !only.test(f) && !only.test(f.split("/").pop()!)) continue;
      const abs = `${root}/${f}`;
      if (statSync(abs).size > MAX_SEARCH_FILE) continue;
      const text = readNoFollow(abs);
      if (text.includes("\0")) continue;
      const lines = text.split("\n");
      for (let i = 0; i < lines.length && out.length < MAX_MATCHES; i++) {
        if (re.test(lines[i])) out.push(`${f}:${i + 1}: ${lines[i].slice(0, 300)}`);
      }
      if (out.length >= MAX_MATCHES) {
        out.push(`[… stopped at ${MAX_MATCHES} matches]`);
        break;
      }
    }
    return { text: out.length ? out.join("\n") : "No matches." };
  },
};

export const writeFile: Tool = {
  name: "write_file",
  description: "Create or overwrite a file with the given content (folders are created).",
  parameters: {
    type: "object",
    properties: { path: pathArg, content: { type: "string" } },
    required: ["path", "content"],
  },
  kind: "edit",
  writes: true,
  title: (a) => `Write ${str(a.path) ?? ""}`,
  locations: (a, cwd) => [confine(cwd, a.path)],
  async run(a, ctx) {
    const abs = confine(ctx.cwd, a.path);
    const content = str(a.content) ?? "";
    const oldText = existsSync(abs) ? readText(abs, String(a.path)) : null;
    await writeOut(abs, content, ctx);
    return {
      text: `${oldText === null ? "Created" : "Wrote"} ${shown(ctx.cwd, abs)} (${content.length} characters).`,
      diff: { path: abs, oldText, newText: content },
    };
  },
};

export const editFile: Tool = {
  name: "edit_file",
  description:
    "Replace an exact string in a file. old_string must occur exactly once unless replace_all is true; include enough context to make it unique.",
  parameters: {
    type: "object",
    properties: {
      path: pathArg,
      old_string: { type: "string" },
      new_string: { type: "string" },
      replace_all: { type: "boolean" },
    },
    required: ["path", "old_string", "new_string"],
  },
  kind: "edit",
  writes: true,
  title: (a) => `Edit ${str(a.path) ?? ""}`,
  locations: (a, cwd) => [confine(cwd, a.path)],
  async run(a, ctx) {
    const abs = confine(ctx.cwd, a.path);
    const oldText = readText(abs, String(a.path));
    const from = str(a.old_string) ?? "";
    const to = str(a.new_string) ?? "";
    if (from === "") throw new ToolRefused("old_string is empty; use write_file to create a file.");
    const count = oldText.split(from).length - 1;
    if (count === 0)
      throw new ToolRefused(
        `old_string was not found in ${a.path}; read the file and copy the text exactly. Nothing was changed.`,
      );
    if (count > 1 && a.replace_all !== true) {
      throw new ToolRefused(
        `old_string occurs ${count} times in ${a.path}; add context to make it unique or set replace_all. Nothing was changed.`,
      );
    }
    const newText = a.replace_all === true ? oldText.split(from).join(to) : oldText.replace(from, () => to);
    await writeOut(abs, newText, ctx);
    return {
      text: `Edited ${shown(ctx.cwd, abs)} (${count} replacement${count === 1 ? "" : "s"}).`,
      diff: { path: abs, oldText, newText },
    };
  },
};
