// Reads test-run output (already plain text, see plain-text.ts) and says how many tests
// passed, failed and were skipped, so an agent watching a long run need not scroll.
//
// Each runner gets its own scanner. A runner's own summary line ("final") is the truth
// and wins over counting result lines; while a run is going, result lines are counted
// (final: false). Several runners share marks (✓ is vitest's and jest's, ✔ node's and
// mocha's), so each scanner also says whether it saw a line only its runner prints; an
// unclaimed ✓ could as well be a build tool's "✓ built in 1.2s", and counts nothing.
//
// Skipped includes todo (and pytest's xfailed): tests that were not run to a verdict.
// Failed includes node's cancelled and pytest's errors: tests that did not pass.

export type TestRunner = "node:test" | "vitest" | "jest" | "pytest" | "mocha" | "go";

export interface TestCounts {
  runner: TestRunner;
  passed: number;
  failed: number;
  skipped: number;
  /** From the runner's own summary; false while counting result lines of a run. */
  final: boolean;
}

interface Scan extends TestCounts {
  /** Index of the last line the scanner recognised: the most recent runner wins. */
  at: number;
  /** Saw a line only this runner prints. */
  sure: boolean;
}

class Tally {
  passed = 0;
  failed = 0;
  skipped = 0;
  at = -1;
  sure = false;
  seen(i: number, sure = false): void {
    this.at = i;
    if (sure) this.sure = true;
  }
  get any(): boolean {
    return this.passed + this.failed + this.skipped > 0;
  }
  scan(runner: TestRunner): Scan | null {
    if (!this.sure && !this.any) return null;
    return {
      runner,
      passed: this.passed,
      failed: this.failed,
      skipped: this.skipped,
      final: false,
      at: this.at,
      sure: this.sure,
    };
  }
}

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

// "1 failed | 4 passed | 1 skipped" or "1 failed, 4 passed, 7 total" → { failed: 1, … }
function parseCounts(text: string, separator: RegExp): Record<string, number> | null {
  const out: Record<string, number> = {};
  for (const part of text.split(separator)) {
    const m = /^\s*(\d+) ([a-z]+)\s*$/.exec(part);
    if (!m) return null;
    out[m[2]] = (out[m[2]] ?? 0) + Number(m[1]);
  }
  return out;
}

function finalScan(runner: TestRunner, at: number, passed: number, failed: number, skipped: number): Scan {
  return { runner, passed, failed, skipped, final: true, at, sure: true };
}

// node --test. TAP reporter (default when piped on Node 20):
//   ok 1 - adds / not ok 2 - fails / ok 3 - x # SKIP, YAML blocks, "# pass 3" summary.
// Spec reporter (default on a terminal, and on Node 23+):
//   ▶ suite / ✔ adds (1.36ms) / ✖ fails (2.0ms) / ﹣ skipped (0.3ms) # SKIP, "ℹ pass 3".
function scanNode(lines: string[]): Scan | null {
  const t = new Tally();
  const summary: Record<string, number> = {};
  let summaryAt = -1;
  let last: "passed" | "failed" | "skipped" | null = null;
  const suites = new Set<string>();
  let failureReplay = false;
  lines.forEach((line, i) => {
    let m: RegExpExecArray | null;
    if ((m = /^(?:#|ℹ)\s+(tests|suites|pass|fail|cancelled|skipped|todo|duration_ms)\s+([\d.]+)\s*$/.exec(line))) {
      summary[m[1]] = Number(m[2]);
      summaryAt = i;
      t.seen(i, true);
    } else if ((m = /^\s*(not )?ok \d+(?:\s+-\s+.*?)?(?:\s+#\s*(SKIP|TODO)\b.*)?$/i.exec(line))) {
      last = m[2] ? "skipped" : m[1] ? "failed" : "passed";
      t[last]++;
      t.seen(i, true);
    } else if (/^\s*type: 'suite'\s*$/.test(line)) {
      // The YAML block after a suite's own "ok" line: a suite is not a test.
      if (last) t[last]--;
      last = null;
    } else if (/^TAP version \d+$|^\s*# Subtest: /.test(line)) {
      t.seen(i, true);
    } else if ((m = /^(\s*)▶\s+(.+?)\s*$/.exec(line))) {
      // A suite (or a test with subtests) opens; its closing ✔/✖ line is not a test.
      if (!/\([\d.]+m?s\)$/.test(m[2])) suites.add(`${m[1].length}:${m[2]}`);
      t.seen(i, true);
    } else if (/^\s*✖ failing tests:\s*$/.test(line)) {
      // After the summary, the spec reporter lists the failures again.
      failureReplay = true;
      t.seen(i, true);
    } else if (
      !failureReplay &&
      (m = /^(\s*)([✔✖﹣])\s+(.+?)(?:\s+\(([\d.]+)ms\))?(?:\s+#\s*(SKIP|TODO)\b.*)?$/.exec(line))
    ) {
      if (suites.has(`${m[1].length}:${m[3]}`)) return;
      const kind = m[5] || m[2] === "﹣" ? "skipped" : m[2] === "✖" ? "failed" : "passed";
      t[kind]++;
      // Node times every test with fractional milliseconds; mocha prints whole ones,
      // and only for slow tests.
      t.seen(i, m[2] !== "✔" || m[4]?.includes("."));
    }
  });
  if (summaryAt >= 0 && ("pass" in summary || "fail" in summary)) {
    return finalScan(
      "node:test",
      summaryAt,
      summary.pass ?? 0,
      (summary.fail ?? 0) + (summary.cancelled ?? 0),
      (summary.skipped ?? 0) + (summary.todo ?? 0),
    );
  }
  return t.scan("node:test");
}

// vitest. Default reporter: a line per file, "✓ a.test.ts (5 tests | 1 failed) 16ms",
// with the tests of failing files under it; verbose: "✓ a.test.ts > math > adds 4ms".
// Summary: "      Tests  1 failed | 4 passed | 1 skipped | 1 todo (7)".
function scanVitest(lines: string[]): Scan | null {
  const t = new Tally();
  let final: Scan | null = null;
  // Indent of the last file line that carried counts; deeper lines are its tests.
  let fileIndent = -1;
  lines.forEach((line, i) => {
    let m: RegExpExecArray | null;
    if ((m = /^\s*Tests\s{2,}(.+?)\s*\((\d+)\)\s*$/.exec(line))) {
      const c = parseCounts(m[1], /\s*\|\s*/);
      if (c && ["passed", "failed", "skipped", "todo"].some((k) => k in c)) {
        final = finalScan("vitest", i, c.passed ?? 0, c.failed ?? 0, (c.skipped ?? 0) + (c.todo ?? 0));
      }
    } else if (/^\s*RUN\s+v\d|^\s*Test Files\s{2,}\d|⎯ Failed Tests \d+ ⎯/.test(line)) {
      t.seen(i, true);
    } else if ((m = /^(\s*)[✓×❯↓]\s+\S+\.\w+\s+\((\d+)(?: tests?)?((?:\s*\|\s*\d+ [a-z]+)*)\)/.exec(line))) {
      // A file line: its counts cover the test lines that follow it.
      const total = Number(m[2]);
      const c = (m[3] ? parseCounts(m[3].replace(/^\s*\|/, ""), /\s*\|\s*/) : {}) ?? {};
      const failed = c.failed ?? 0;
      const skipped = (c.skipped ?? 0) + (c.todo ?? 0);
      t.failed += failed;
      t.skipped += skipped;
      t.passed += Math.max(0, total - failed - skipped);
      fileIndent = m[1].length;
      t.seen(i, true);
    } else if ((m = /^(\s*)([✓×↓□])\s+(.+)$/.exec(line))) {
      if (fileIndent >= 0 && m[1].length > fileIndent) return;
      fileIndent = -1;
      // A tree reporter's suite line carries a bare count: "✓ math (3)".
      if (/\(\d+\)(?:\s+[\d.]+m?s)?$/.test(m[3])) return;
      if (m[2] === "✓") t.passed++;
      else if (m[2] === "×") t.failed++;
      else t.skipped++;
      // × ↓ □ are vitest's own. A ✓ is vitest's when indented and timed bare ("adds 4ms",
      // "1.20s"): jest writes "(4 ms)", and a build tool's "✓ built in 1.23s" starts the line.
      t.seen(i, m[2] !== "✓" || (m[1].length > 0 && /\s(?:\d+ms|\d+\.\d\ds)$/.test(m[3])));
    } else if (line.trim() !== "" && indentOf(line) <= fileIndent) {
      fileIndent = -1;
    }
  });
  return final ?? t.scan("vitest");
}

// jest. Verbose: "✓ adds (4 ms)", "✕ fails", "○ skipped x", "✎ todo x"; without
// --verbose only " PASS  ./a.test.js" file lines, which count files, not tests.
// Summary: "Tests:       1 failed, 1 skipped, 1 todo, 4 passed, 7 total".
function scanJest(lines: string[]): Scan | null {
  const t = new Tally();
  let final: Scan | null = null;
  lines.forEach((line, i) => {
    let m: RegExpExecArray | null;
    if ((m = /^\s*Tests:\s+(.+?)\s*$/.exec(line))) {
      const c = parseCounts(m[1], /\s*,\s*/);
      if (c && "total" in c) {
        final = finalScan("jest", i, c.passed ?? 0, c.failed ?? 0, (c.skipped ?? 0) + (c.todo ?? 0));
      }
    } else if (
      /^\s*(?:PASS|FAIL|RUNS)\s+\S+(?:\s+\([\d.]+ m?s(?:, [\d.]+ MB heap size)?\))?$|^\s*Test Suites:\s+\d|^\s*● /.test(
        line,
      )
    ) {
      // vitest's failure headers also start " FAIL ", but go on "file > suite > test".
      t.seen(i, true);
    } else if ((m = /^\s*([✓✕○✎])\s+(.+)$/.exec(line))) {
      if (m[1] === "✓") t.passed++;
      else if (m[1] === "✕") t.failed++;
      else t.skipped++;
      t.seen(i, m[1] !== "✓" || /\(\d+(?:\.\d+)? m?s\)$/.test(m[2]));
    }
  });
  return final ?? t.scan("jest");
}

// pytest. Progress: "tests/test_api.py ..Fsx   [ 71%]" (and bare "..Fsx..  [100%]" with
// -q); verbose: "tests/test_api.py::test_a PASSED   [ 14%]".
// Summary: "=== 1 failed, 4 passed, 1 skipped, 1 xfailed in 1.13s ===" (no rules with -q).
const PYTEST_FINAL_WORDS = ["passed", "failed", "skipped", "error", "errors", "xfailed", "xpassed", "deselected"];
function scanPytest(lines: string[]): Scan | null {
  const t = new Tally();
  let final: Scan | null = null;
  const byChar = (chars: string): void => {
    for (const ch of chars) {
      if (ch === "." || ch === "X") t.passed++;
      else if (ch === "F" || ch === "E") t.failed++;
      else t.skipped++; // s, x
    }
  };
  const byWord = (word: string): void => {
    if (word === "PASSED" || word === "XPASS") t.passed++;
    else if (word === "FAILED" || word === "ERROR") t.failed++;
    else t.skipped++; // SKIPPED, XFAIL
  };
  lines.forEach((line, i) => {
    let m: RegExpExecArray | null;
    if ((m = /^=*\s*(.+?) in [\d.]+s\b(?: \([\d:]+\))?\s*=*\s*$/.exec(line))) {
      const c = parseCounts(m[1], /\s*,\s*/);
      if (c && Object.keys(c).some((k) => PYTEST_FINAL_WORDS.includes(k))) {
        final = finalScan(
          "pytest",
          i,
          (c.passed ?? 0) + (c.xpassed ?? 0),
          (c.failed ?? 0) + (c.error ?? 0) + (c.errors ?? 0),
          (c.skipped ?? 0) + (c.xfailed ?? 0),
        );
      } else if (/^=*\s*no tests ran$/.test(m[1])) {
        final = finalScan("pytest", i, 0, 0, 0);
      }
    } else if (/^=+ test session starts =+$|^collect(?:ed|ing) .*\d+ items?/.test(line)) {
      t.seen(i, true);
    } else if (
      (m = /^\S+\.py\s+([.FEsxX]+)\s*(?:\[\s*\d+%\])?$/.exec(line)) ||
      (m = /^([.FEsxX]+)\s+\[\s*\d+%\]$/.exec(line))
    ) {
      byChar(m[1]);
      t.seen(i, true);
    } else if ((m = /^\S+\.py::\S.*?\s(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\b/.exec(line))) {
      byWord(m[1]);
      t.seen(i, true);
    } else if ((m = /^\[gw\d+\]\s+\[\s*\d+%\]\s+(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\s+\S+\.py::/.exec(line))) {
      // pytest-xdist workers report as "[gw0] [ 50%] PASSED tests/test_a.py::test_x".
      byWord(m[1]);
      t.seen(i, true);
    }
  });
  return final ?? t.scan("pytest");
}

// mocha (spec reporter): "    ✔ returns -1", "    1) should fail", "    - pending test",
// then "  1 passing (6ms)", "  2 pending", "  1 failing" and the failures replayed.
function scanMocha(lines: string[]): Scan | null {
  const t = new Tally();
  let final: Scan | null = null;
  let passes = 0;
  let summary = false;
  lines.forEach((line, i) => {
    let m: RegExpExecArray | null;
    if ((m = /^\s*(\d+) passing \([\d.]+[a-z]+\)\s*$/.exec(line))) {
      final = finalScan("mocha", i, Number(m[1]), 0, 0);
      summary = true;
    } else if (final && (m = /^\s*(\d+) (failing|pending)\s*$/.exec(line))) {
      const f: Scan = final;
      if (m[2] === "failing") f.failed = Number(m[1]);
      else f.skipped = Number(m[1]);
      f.at = i;
    } else if (summary) {
      // After the summary mocha replays each failure as "  1) Suite"; not new tests.
    } else if ((m = /^\s+([✔✓])\s+(.+)$/.exec(line))) {
      t.passed++;
      passes++;
      t.seen(i, passes >= 2 && !/\(\d+\.\d+ms\)$/.test(m[2]));
    } else if (/^\s{2,}\d+\) \S/.test(line)) {
      t.failed++;
      t.seen(i, passes > 0);
    } else if (/^\s{2,}- \S/.test(line) && (passes > 0 || t.failed > 0)) {
      // "- pending": only inside a run already seen; otherwise it is any bullet list.
      t.skipped++;
      t.seen(i);
    }
  });
  return final ?? t.scan("mocha");
}

// go test. Per test with -v: "--- PASS: TestAdd (0.00s)", subtests indented; per
// package: "ok  	example.com/m	0.01s", "FAIL	example.com/m	0.02s". go test prints no
// totals, so these counts are never final.
function scanGo(lines: string[]): Scan | null {
  const t = new Tally();
  lines.forEach((line, i) => {
    let m: RegExpExecArray | null;
    if ((m = /^\s*--- (PASS|FAIL|SKIP): \S+ \([\d.]+s\)/.exec(line))) {
      if (m[1] === "PASS") t.passed++;
      else if (m[1] === "FAIL") t.failed++;
      else t.skipped++;
      t.seen(i, true);
    } else if (
      /^=== (?:RUN|PAUSE|CONT|NAME)\s+\S/.test(line) ||
      /^ok\s+\S+\s+(?:[\d.]+s|\(cached\))/.test(line) ||
      /^FAIL\s+\S+\s+(?:[\d.]+s|\[(?:build|setup) failed\])/.test(line) ||
      /^\?\s+\S+\s+\[no test files\]/.test(line)
    ) {
      t.seen(i, true);
    }
  });
  return t.scan("go");
}

// Order breaks ties between equally recent candidates: the likelier runner first.
const SCANNERS = [scanNode, scanVitest, scanJest, scanPytest, scanMocha, scanGo];

// Result and summary lines are short; a longer line (minified source in a stack trace,
// a JSON dump) is never one, and skipping it keeps every pattern here linear.
const MAX_LINE = 1000;

export function testCounts(lines: string[]): TestCounts | null {
  const usable = lines.map((line) => (line.length > MAX_LINE ? "" : line));
  const scans = SCANNERS.map((scan) => scan(usable)).filter((s): s is Scan => s !== null);
  const pick = (candidates: Scan[]): Scan | null =>
    candidates.reduce<Scan | null>((best, s) => (best === null || s.at > best.at ? s : best), null);
  const chosen = pick(scans.filter((s) => s.final)) ?? pick(scans.filter((s) => s.sure));
  if (!chosen) return null;
  const { runner, passed, failed, skipped, final } = chosen;
  return { runner, passed, failed, skipped, final };
}
