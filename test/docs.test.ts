// The docs a newcomer reads (issue 19): README.md short, with the two commands first;
// ARCHITECTURE.md short, with a folder map that names every folder of src/; the details under
// docs/. Every relative link in them leads to a file, and a #anchor to a heading of it, so
// moving a section cannot leave a link behind.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const read = (file: string) => readFileSync(join(ROOT, file), "utf8");
const KB = 1024;

/** README, ARCHITECTURE and every Markdown file under docs/. */
function docFiles(): string[] {
  const out = ["README.md", "ARCHITECTURE.md"];
  const walk = (dir: string) => {
    for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (e.name.endsWith(".md")) out.push(join(dir, e.name));
    }
  };
  walk("docs");
  return out;
}

/** The text outside fenced code blocks, line by line (a `# comment` in a shell block is no heading). */
function proseLines(md: string): string[] {
  const out: string[] = [];
  let fence: string | null = null;
  for (const line of md.split("\n")) {
    const m = /^\s*(```+|~~~+)/.exec(line);
    if (m) {
      if (fence === null) fence = m[1]![0]!;
      else if (m[1]![0] === fence) fence = null;
      continue;
    }
    if (fence === null) out.push(line);
  }
  return out;
}

/** GitHub's heading anchors: the heading's text without links, code or bold marks, lower case, punctuation
 * dropped, spaces as hyphens; a repeated one gets -1, -2, … */
export function anchorsOf(md: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of proseLines(md)) {
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!h) continue;
    const text = h[1]!.replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1").replace(/[`*]/g, "");
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
      .replace(/ /g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

/** Every [text](target) and ![alt](target) outside code: the target as written. */
function linksOf(md: string): string[] {
  const out: string[] = [];
  for (const line of proseLines(md)) {
    const bare = line.replace(/`[^`]*`/g, "``");
    for (const m of bare.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) out.push(m[1]!);
  }
  return out;
}

test("README.md is at most 10 KB and ARCHITECTURE.md at most 12 KB", () => {
  const readme = statSync(join(ROOT, "README.md")).size;
  const arch = statSync(join(ROOT, "ARCHITECTURE.md")).size;
  assert.ok(readme <= 10 * KB, `README.md is ${readme} bytes, more than ${10 * KB}: move details to docs/`);
  assert.ok(arch <= 12 * KB, `ARCHITECTURE.md is ${arch} bytes, more than ${12 * KB}: move details to docs/`);
});

test("README's first code block holds the two commands: npm start and npm test", () => {
  const block = /```[^\n]*\n([\s\S]*?)```/.exec(read("README.md"));
  assert.ok(block, "README.md has no code block");
  const lines = block[1]!.split("\n").map((l) => l.trim());
  assert.ok(
    lines.some((l) => /^npm start(\s|$)/.test(l)),
    `no \`npm start\` line in README's first code block:\n${block[1]}`,
  );
  assert.ok(
    lines.some((l) => /^npm test(\s|$)/.test(l)),
    `no \`npm test\` line in README's first code block:\n${block[1]}`,
  );
});

test("ARCHITECTURE.md's folder map names every folder of src/", () => {
  const arch = read("ARCHITECTURE.md");
  const section = /^## Folders[^\n]*\n([\s\S]*?)(?=^## )/m.exec(arch);
  assert.ok(section, 'ARCHITECTURE.md has no "## Folders" section');
  const named = new Set([...section[1]!.matchAll(/^\|\s*`src\/([^/`]+)\/`/gm)].map((m) => m[1]!));
  const folders = readdirSync(join(ROOT, "src"), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name);
  assert.ok(folders.length > 0);
  const missing = folders.filter((f) => !named.has(f));
  assert.deepEqual(missing, [], `src/ folders missing from ARCHITECTURE.md's folder map: ${missing.join(", ")}`);
  const gone = [...named].filter((f) => !folders.includes(f));
  assert.deepEqual(gone, [], `the folder map names folders src/ no longer has: ${gone.join(", ")}`);
});

test("every relative link in README, ARCHITECTURE and docs/ leads to a file, and its #anchor to a heading", () => {
  const broken: string[] = [];
  const files = docFiles();
  assert.ok(files.length >= 8, `expected README, ARCHITECTURE and docs/*.md, found ${files.join(", ")}`);
  let checked = 0;
  for (const file of files) {
    const md = read(file);
    for (const link of linksOf(md)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // https:, mailto:
      checked++;
      const [path = "", anchor] = link.split("#", 2);
      const target = path ? resolve(ROOT, dirname(file), decodeURIComponent(path)) : join(ROOT, file);
      const shown = `${file}: (${link})`;
      if (relative(ROOT, target).startsWith("..")) {
        broken.push(`${shown} leads outside the repository`);
        continue;
      }
      if (!existsSync(target)) {
        broken.push(`${shown}: no file ${relative(ROOT, target)}`);
        continue;
      }
      if (anchor !== undefined) {
        if (!target.endsWith(".md")) broken.push(`${shown}: an anchor into a file that is not Markdown`);
        else if (!anchorsOf(readFileSync(target, "utf8")).has(anchor))
          broken.push(`${shown}: no heading #${anchor} in ${relative(ROOT, target)}`);
      }
    }
  }
  assert.ok(checked > 50, `only ${checked} relative links found: is the link reader broken?`);
  assert.deepEqual(broken, []);
});

test("the anchor rule matches GitHub's on the headings in use", () => {
  const md = [
    "# OAR — an agent relay",
    "## The path of one `send`",
    "## How it works (`src/pairing/`)",
    "### DeepSeek and OpenAI-compatible endpoints (OAR's own agent)",
    "## `run_command` is not confined",
    "## Notes",
    "## Notes",
    "```sh",
    "# on build-box: a comment, not a heading",
    "```",
  ].join("\n");
  assert.deepEqual(
    [...anchorsOf(md)],
    [
      "oar--an-agent-relay",
      "the-path-of-one-send",
      "how-it-works-srcpairing",
      "deepseek-and-openai-compatible-endpoints-oars-own-agent",
      "run_command-is-not-confined",
      "notes",
      "notes-1",
    ],
  );
});
