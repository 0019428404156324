// The built-in tools, in the order the model sees them.

import { editFile, listFiles, readFile, searchFiles, writeFile } from "./files.ts";
import { updatePlan } from "./plan.ts";
import { runCommand } from "./shell.ts";
import type { Tool } from "./types.ts";

export const BUILTIN_TOOLS: readonly Tool[] = [
  readFile,
  listFiles,
  searchFiles,
  editFile,
  writeFile,
  runCommand,
  updatePlan,
];
