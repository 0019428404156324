import { createTwoFilesPatch } from "diff";

// What a CLI's permission request would do, whole (contract §10.3): the command it would
// run, the files it would touch, and the diff of an edit, as a card's `detail`. Built from
// the ACP tool call as the CLI sent it (rawInput, locations, content of type "diff").

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

export function permissionDetail(tool: ToolCallLike): string {
  const input = obj(tool.rawInput);
  const lines: string[] = [`Tool: ${tool.title || tool.kind || "a tool"}`];
  const command =
    str(input.command) || str(input.cmd) || (Array.isArray(input.command) ? input.command.map(String).join(" ") : "");
  if (command) lines.push(`Command: ${command}`);
  const files = [...new Set((tool.locations ?? []).map((l) => str(l?.path)).filter(Boolean))];
  if (files.length) lines.push(`Files: ${files.join(", ")}`);
  // An edit's diff: as the CLI sent it in the tool call's content, else from its input
  // (Claude's Edit sends file_path, old_string, new_string).
  const diffs = (Array.isArray(tool.content) ? tool.content : [])
    .map(obj)
    .filter((c) => c.type === "diff" && str(c.path));
  const patches = diffs.map((c) => patch(str(c.path), str(c.oldText), str(c.newText)));
  const path = str(input.file_path) || str(input.path);
  if (!patches.length && path && (typeof input.new_string === "string" || typeof input.content === "string")) {
    patches.push(patch(path, str(input.old_string), str(input.new_string) || str(input.content)));
  }
  if (patches.length) lines.push("", ...patches);
  if (tool.rawInput !== undefined) lines.push("", "Input:", JSON.stringify(tool.rawInput, null, 2));
  return lines.join("\n");
}

function patch(path: string, oldText: string, newText: string): string {
  // The header lines of createTwoFilesPatch past the first separator; no "Index:" banner.
  return createTwoFilesPatch(path, path, oldText, newText, "", "", { context: 3 })
    .split("\n")
    .slice(1)
    .join("\n")
    .trimEnd();
}
