// A git repository of `files` small TypeScript files in nested folders (the worktrees benches).
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const ID = ["-c", "user.name=Bench", "-c", "user.email=bench@localhost"];
export const sh = (cwd: string, ...args: string[]) =>
  execFileSync("git", [...ID, ...args], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

export function bigRepo(repo: string, files: number): void {
  mkdirSync(repo);
  sh(repo, "init", "-q", "-b", "main");
  for (let i = 0; i < files; i++) {
    const dir = join(repo, `pkg${Math.floor(i / 500)}`, `mod${Math.floor(i / 50) % 10}`);
    if (i % 50 === 0) mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `file${i}.ts`), `export const v${i} = ${i};\n// line two\n// line three\n`);
  }
  sh(repo, "add", "-A");
  sh(repo, "commit", "-q", "-m", `${files} files`);
}
