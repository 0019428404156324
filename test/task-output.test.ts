// read_task_output's pure parts: plain text from terminal output, masking, the tail
// window with [×N] collapse, and test counts from real runners' output. The runner
// samples are what the tools print (vitest 4, jest 30, mocha 12, node 20's test runner,
// pytest 9 captured from real runs; go test from its documented format), colour codes
// included where the tool writes them.

import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { toPlainLines, stripAnsi } from "../src/tasks/plain-text.ts";
import { maskSecrets } from "../src/tasks/mask-secrets.ts";
import { MASK } from "../src/core/secret-mask.ts";
import { tailLines, collapseRepeats, clampTailSize } from "../src/tasks/tail.ts";
import { testCounts } from "../src/tasks/test-counts.ts";

const counts = (raw: string) => testCounts(toPlainLines(raw));

// ── samples ────────────────────────────────────────────────────────────────────────

const VITEST = `
\x1b[1m\x1b[30m\x1b[46m RUN \x1b[49m\x1b[39m\x1b[22m \x1b[36mv4.1.12 \x1b[39m\x1b[90m/tmp/samples/v\x1b[39m

 \x1b[31m❯\x1b[39m math.test.ts \x1b[2m(\x1b[22m\x1b[2m5 tests\x1b[22m\x1b[2m | \x1b[22m\x1b[31m1 failed\x1b[39m\x1b[2m | \x1b[22m\x1b[33m1 skipped\x1b[39m\x1b[2m | \x1b[22m\x1b[90m1 todo\x1b[39m\x1b[2m)\x1b[22m\x1b[32m 10\x1b[2mms\x1b[22m\x1b[39m
     \x1b[32m✓\x1b[39m adds\x1b[32m 3\x1b[2mms\x1b[22m\x1b[39m
     \x1b[32m✓\x1b[39m subtracts\x1b[32m 0\x1b[2mms\x1b[22m\x1b[39m
\x1b[31m     \x1b[31m×\x1b[31m fails\x1b[39m\x1b[32m 6\x1b[2mms\x1b[22m\x1b[39m
     \x1b[2m\x1b[90m↓\x1b[39m\x1b[22m skipped
     \x1b[2m\x1b[90m□\x1b[39m\x1b[22m todo one
 \x1b[32m✓\x1b[39m ok.test.ts \x1b[2m(\x1b[22m\x1b[2m2 tests\x1b[22m\x1b[2m)\x1b[22m\x1b[32m 4\x1b[2mms\x1b[22m\x1b[39m

\x1b[31m⎯⎯⎯⎯⎯⎯⎯\x1b[39m\x1b[1m\x1b[41m Failed Tests 1 \x1b[49m\x1b[22m\x1b[31m⎯⎯⎯⎯⎯⎯⎯\x1b[39m

\x1b[41m\x1b[1m FAIL \x1b[22m\x1b[49m math.test.ts\x1b[2m > \x1b[22mmath\x1b[2m > \x1b[22mfails
\x1b[31m\x1b[1mAssertionError\x1b[22m: expected 200 to be 404 // Object.is equality\x1b[39m

\x1b[32m- Expected\x1b[39m
\x1b[31m+ Received\x1b[39m

\x1b[36m \x1b[2m❯\x1b[22m math.test.ts:\x1b[2m5:33\x1b[22m\x1b[39m
    \x1b[90m  5|\x1b[39m   \x1b[34mit\x1b[39m(\x1b[32m'fails'\x1b[39m\x1b[33m,\x1b[39m () \x1b[33m=>\x1b[39m \x1b[34mexpect\x1b[39m(\x1b[34m200\x1b[39m)\x1b[33m.\x1b[39m\x1b[34mtoBe\x1b[39m(\x1b[34m404\x1b[39m))\x1b[33m;\x1b[39m

\x1b[31m\x1b[2m⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[1/1]⎯\x1b[22m\x1b[39m


\x1b[2m Test Files \x1b[22m \x1b[1m\x1b[31m1 failed\x1b[39m\x1b[22m\x1b[2m | \x1b[22m\x1b[1m\x1b[32m1 passed\x1b[39m\x1b[22m\x1b[90m (2)\x1b[39m
\x1b[2m      Tests \x1b[22m \x1b[1m\x1b[31m1 failed\x1b[39m\x1b[22m\x1b[2m | \x1b[22m\x1b[1m\x1b[32m4 passed\x1b[39m\x1b[22m\x1b[2m | \x1b[22m\x1b[33m1 skipped\x1b[39m\x1b[2m | \x1b[22m\x1b[90m1 todo\x1b[39m\x1b[90m (7)\x1b[39m
\x1b[2m   Start at \x1b[22m 12:03:31
\x1b[2m   Duration \x1b[22m 819ms\x1b[2m (transform 48ms, setup 0ms, import 80ms, tests 15ms, environment 0ms)\x1b[22m

`;

const VITEST_VERBOSE_RUNNING = `
\x1b[1m\x1b[30m\x1b[46m RUN \x1b[49m\x1b[39m\x1b[22m \x1b[36mv4.1.12 \x1b[39m\x1b[90m/tmp/samples/v\x1b[39m

 \x1b[32m✓\x1b[39m math.test.ts\x1b[2m > \x1b[22mmath\x1b[2m > \x1b[22madds\x1b[32m 4\x1b[2mms\x1b[22m\x1b[39m
 \x1b[32m✓\x1b[39m math.test.ts\x1b[2m > \x1b[22mmath\x1b[2m > \x1b[22msubtracts\x1b[32m 0\x1b[2mms\x1b[22m\x1b[39m
 \x1b[31m×\x1b[39m math.test.ts\x1b[2m > \x1b[22mmath\x1b[2m > \x1b[22mfails\x1b[32m 8\x1b[2mms\x1b[22m\x1b[39m
\x1b[31m   → expected 200 to be 404 // Object.is equality\x1b[39m
 \x1b[2m\x1b[90m↓\x1b[39m\x1b[22m math.test.ts\x1b[2m > \x1b[22mmath\x1b[2m > \x1b[22mskipped
 \x1b[2m\x1b[90m□\x1b[39m\x1b[22m math.test.ts\x1b[2m > \x1b[22mmath\x1b[2m > \x1b[22mtodo one
 \x1b[32m✓\x1b[39m ok.test.ts\x1b[2m > \x1b[22mworks\x1b[32m 3\x1b[2mms\x1b[22m\x1b[39m
`;

const JEST_VERBOSE = `\x1b[0m\x1b[7m\x1b[1m\x1b[31m FAIL \x1b[39m\x1b[22m\x1b[27m\x1b[0m \x1b[2m./\x1b[22m\x1b[1mmath.test.js\x1b[22m
  math
    \x1b[32m✓\x1b[39m \x1b[2madds (4 ms)\x1b[22m
    \x1b[32m✓\x1b[39m \x1b[2msubtracts (1 ms)\x1b[22m
    \x1b[31m✕\x1b[39m \x1b[2mfails (4 ms)\x1b[22m
    \x1b[33m○\x1b[39m \x1b[2mskipped skipped\x1b[22m
    \x1b[35m✎\x1b[39m \x1b[2mtodo todo one\x1b[22m

\x1b[1m\x1b[31m  \x1b[1m● \x1b[22m\x1b[1mmath › fails\x1b[39m\x1b[22m

    \x1b[2mexpect(\x1b[22m\x1b[31mreceived\x1b[39m\x1b[2m).\x1b[22mtoBe\x1b[2m(\x1b[22m\x1b[32mexpected\x1b[39m\x1b[2m) // Object.is equality\x1b[22m

    Expected: \x1b[32m404\x1b[39m
    Received: \x1b[31m200\x1b[39m

\x1b[0m\x1b[7m\x1b[1m\x1b[32m PASS \x1b[39m\x1b[22m\x1b[27m\x1b[0m \x1b[2m./\x1b[22m\x1b[1mok.test.js\x1b[22m
  \x1b[32m✓\x1b[39m \x1b[2mworks (4 ms)\x1b[22m
  \x1b[32m✓\x1b[39m \x1b[2mworks too (1 ms)\x1b[22m

\x1b[1mTest Suites: \x1b[22m\x1b[1m\x1b[31m1 failed\x1b[39m\x1b[22m, \x1b[1m\x1b[32m1 passed\x1b[39m\x1b[22m, 2 total
\x1b[1mTests:       \x1b[22m\x1b[1m\x1b[31m1 failed\x1b[39m\x1b[22m, \x1b[1m\x1b[33m1 skipped\x1b[39m\x1b[22m, \x1b[1m\x1b[35m1 todo\x1b[39m\x1b[22m, \x1b[1m\x1b[32m4 passed\x1b[39m\x1b[22m, 7 total
\x1b[1mSnapshots:   \x1b[22m0 total
\x1b[1mTime:\x1b[22m        0.776 s, estimated 1 s
\x1b[2mRan all test suites\x1b[22m\x1b[2m.\x1b[22m
`;

// jest without --verbose: file lines only until the summary.
const JEST_DEFAULT_RUNNING = `\x1b[0m\x1b[7m\x1b[1m\x1b[32m PASS \x1b[39m\x1b[22m\x1b[27m\x1b[0m \x1b[2msrc/\x1b[22m\x1b[1mparse.test.ts\x1b[22m (\x1b[0m\x1b[1m\x1b[41m5.21 s\x1b[22m\x1b[0m)
\x1b[0m\x1b[7m\x1b[1m\x1b[32m PASS \x1b[39m\x1b[22m\x1b[27m\x1b[0m \x1b[2msrc/\x1b[22m\x1b[1mformat.test.ts\x1b[22m
\x1b[0m\x1b[7m\x1b[1m\x1b[31m FAIL \x1b[39m\x1b[22m\x1b[27m\x1b[0m \x1b[2msrc/\x1b[22m\x1b[1mapi.test.ts\x1b[22m
\x1b[1m\x1b[31m  \x1b[1m● \x1b[22m\x1b[1mapi › fetches the user\x1b[39m\x1b[22m
`;

const NODE_SPEC = `▶ math
  ✔ adds (0.852865ms)
  ✖ fails (1.345328ms)
    AssertionError [ERR_ASSERTION]: 1 == 2
        at TestContext.<anonymous> (file:///tmp/ntest/a.test.mjs:5:28)
    \x1b[90m    at Test.runInAsyncScope (node:async_hooks:206:9)\x1b[39m
    \x1b[90m    at Test.run (node:internal/test_runner/test:796:25)\x1b[39m
        at async Promise.all (index 0)
    \x1b[90m    at async Suite.run (node:internal/test_runner/test:1135:7)\x1b[39m {
      generatedMessage: \x1b[33mtrue\x1b[39m,
      code: \x1b[32m'ERR_ASSERTION'\x1b[39m,
      actual: \x1b[33m1\x1b[39m,
      expected: \x1b[33m2\x1b[39m,
      operator: \x1b[32m'=='\x1b[39m
    }

  ﹣ skipped one (0.178087ms) # SKIP
  ✔ todo one (0.130798ms) # TODO
✖ math (3.934404ms)
▶ parent
  ✔ child (0.764397ms)
✔ parent (4.950878ms)
ℹ tests 6
ℹ suites 1
ℹ pass 3
ℹ fail 1
ℹ cancelled 0
ℹ skipped 1
ℹ todo 1
ℹ duration_ms 242.118331

✖ failing tests:

test at a.test.mjs:5:3
✖ fails (2.009948ms)
  AssertionError [ERR_ASSERTION]: 1 == 2
`;

const NODE_TAP = `TAP version 13
# Subtest: math
    # Subtest: adds
    ok 1 - adds
      ---
      duration_ms: 0.894924
      ...
    # Subtest: fails
    not ok 2 - fails
      ---
      duration_ms: 1.216033
      location: '/tmp/ntest/a.test.mjs:5:3'
      failureType: 'testCodeFailure'
      error: '1 == 2'
      code: 'ERR_ASSERTION'
      ...
    # Subtest: skipped one
    ok 3 - skipped one # SKIP
      ---
      duration_ms: 0.15793
      ...
    # Subtest: todo one
    ok 4 - todo one # TODO
      ---
      duration_ms: 0.128013
      ...
    1..4
not ok 1 - math
  ---
  duration_ms: 3.867877
  type: 'suite'
  location: '/tmp/ntest/a.test.mjs:3:1'
  failureType: 'subtestsFailed'
  error: '1 subtest failed'
  code: 'ERR_TEST_FAILURE'
  ...
# Subtest: parent
    # Subtest: child
    ok 1 - child
      ---
      duration_ms: 0.187905
      ...
    1..1
ok 2 - parent
  ---
  duration_ms: 3.884899
  ...
1..2
# tests 6
# suites 1
# pass 3
# fail 1
# cancelled 0
# skipped 1
# todo 1
# duration_ms 215.072048
`;

const PYTEST = `============================= test session starts ==============================
platform linux -- Python 3.11.7, pytest-9.0.3, pluggy-1.6.0
rootdir: /tmp/samples/py
plugins: hypothesis-6.155.2, benchmark-5.2.3
collected 7 items

tests/test_api.py \x1b[32m.\x1b[0m\x1b[32m.\x1b[0m\x1b[31mF\x1b[0m\x1b[33ms\x1b[0m\x1b[33mx\x1b[0m\x1b[31m                                                  [ 71%]\x1b[0m
tests/test_more.py \x1b[32m.\x1b[0m\x1b[32m.\x1b[0m\x1b[31m                                                    [100%]\x1b[0m

=================================== FAILURES ===================================
__________________________________ test_fail ___________________________________

>   def test_fail(): assert 1 == 2
E   assert 1 == 2

tests/test_api.py:4: AssertionError
=========================== short test summary info ============================
FAILED tests/test_api.py::test_fail - assert 1 == 2
============== 1 failed, 4 passed, 1 skipped, 1 xfailed in 1.13s ===============
`;

const PYTEST_VERBOSE = `============================= test session starts ==============================
platform linux -- Python 3.11.7, pytest-9.0.3, pluggy-1.6.0 -- /root/.pyenv/versions/3.11.7/bin/python3
cachedir: .pytest_cache
rootdir: /tmp/samples/py
collecting ... collected 7 items

tests/test_api.py::test_a PASSED                                         [ 14%]
tests/test_api.py::test_b PASSED                                         [ 28%]
tests/test_api.py::test_fail FAILED                                      [ 42%]
tests/test_api.py::test_skip SKIPPED (later)                             [ 57%]
tests/test_api.py::test_xf XFAIL                                         [ 71%]
`;

const MOCHA = `
\x1b[0m\x1b[0m
\x1b[0m  Array\x1b[0m
\x1b[0m    #indexOf()\x1b[0m
    \x1b[32m  \x1b[32m✔\x1b[39m\x1b[0m\x1b[90m should return -1 when the value is not present\x1b[0m
    \x1b[32m  \x1b[32m✔\x1b[39m\x1b[0m\x1b[90m should return the index when present\x1b[0m
    \x1b[31m  1) should fail\x1b[0m
    \x1b[36m  - pending test\x1b[0m
    \x1b[36m  - skipped test\x1b[0m


\x1b[92m \x1b[0m\x1b[32m 2 passing\x1b[0m\x1b[90m (6ms)\x1b[0m
\x1b[36m \x1b[0m\x1b[36m 2 pending\x1b[0m
\x1b[31m  1 failing\x1b[0m

\x1b[0m  1) Array
       #indexOf()
         should fail:

      \x1b[31mAssertionError [ERR_ASSERTION]: 1 == 2\x1b[0m
      at Context.<anonymous> (mt/a.spec.cjs:5:44)
`;

const GO = `=== RUN   TestAdd
--- PASS: TestAdd (0.00s)
=== RUN   TestSub
    calc_test.go:14: Sub(3, 1) = 1; want 2
--- FAIL: TestSub (0.00s)
=== RUN   TestTable
=== RUN   TestTable/zero
=== RUN   TestTable/negative
    calc_test.go:31: not yet
--- PASS: TestTable (0.00s)
    --- PASS: TestTable/zero (0.00s)
    --- SKIP: TestTable/negative (0.00s)
FAIL
FAIL\texample.com/calc\t0.002s
ok  \texample.com/calc/parse\t0.004s
?   \texample.com/calc/cmd\t[no test files]
FAIL
`;

// ── plain text ─────────────────────────────────────────────────────────────────────

describe("toPlainLines", () => {
  test("strips SGR colours from real vitest output", () => {
    const lines = toPlainLines(VITEST);
    assert.ok(lines.includes(" RUN  v4.1.12 /tmp/samples/v"));
    assert.ok(lines.includes(" ❯ math.test.ts (5 tests | 1 failed | 1 skipped | 1 todo) 10ms"));
    assert.ok(lines.includes("      Tests  1 failed | 4 passed | 1 skipped | 1 todo (7)"));
    assert.ok(lines.every((l) => !l.includes("\x1b")));
  });

  test("OSC 8 hyperlinks keep their text, whether ended by ST or BEL", () => {
    assert.deepEqual(toPlainLines("see \x1b]8;;https://example.com/docs\x1b\\the docs\x1b]8;;\x1b\\ now\n"), [
      "see the docs now",
    ]);
    assert.deepEqual(toPlainLines("see \x1b]8;;file:///tmp/a.ts\x07a.ts\x1b]8;;\x07!"), ["see a.ts!"]);
  });

  test("window titles and other OSC/DCS strings vanish", () => {
    assert.deepEqual(toPlainLines("\x1b]0;npm test\x07> oar@0.9.19 test\n"), ["> oar@0.9.19 test"]);
    assert.deepEqual(toPlainLines("\x1bPq#0;2;0;0;0\x1b\\after"), ["after"]);
  });

  test("non-CSI escapes (charset, keypad, save/restore cursor) vanish", () => {
    assert.deepEqual(toPlainLines("\x1b(Bplain\x1b=\x1b7text\x1b8\x1b>"), ["plaintext"]);
  });

  test("cursor movement and erase sequences vanish", () => {
    assert.deepEqual(toPlainLines("\x1b[2K\x1b[1A\x1b[1Gline\x1b[0K\x1b[?25l\n"), ["line"]);
  });

  test("a CSI cut off at the end of the capture is dropped", () => {
    assert.deepEqual(toPlainLines("building\x1b[3"), ["building"]);
    assert.deepEqual(toPlainLines("building\x1b["), ["building"]);
  });

  test("CRLF line endings", () => {
    assert.deepEqual(toPlainLines("one\r\ntwo\r\n"), ["one", "two"]);
  });

  test("carriage-return progress bar keeps the last state", () => {
    const raw = "Downloading  10% [##        ]\rDownloading  55% [#####     ]\rDownloading 100% [##########]\ndone\n";
    assert.deepEqual(toPlainLines(raw), ["Downloading 100% [##########]", "done"]);
  });

  test("progress bar that writes \\r before each update, and erase-line", () => {
    const raw = "\x1b[2K\rBuilding 1/3\x1b[2K\rBuilding 2/3\x1b[2K\rBuilding 3/3\nok\n";
    assert.deepEqual(toPlainLines(raw), ["Building 3/3", "ok"]);
  });

  test("a line ending in a bare \\r keeps its last non-empty part", () => {
    assert.deepEqual(toPlainLines("⠋ installing\r⠙ installing\r"), ["⠙ installing"]);
    assert.deepEqual(toPlainLines("50%\r100%\r\r\nnext"), ["100%", "next"]);
  });

  test("backspace spinners settle on the last frame", () => {
    assert.deepEqual(toPlainLines("working |\b/\b-\b\\\n"), ["working \\"]);
  });

  test("only one trailing empty line (from the final newline) is dropped", () => {
    assert.deepEqual(toPlainLines("a\nb\n"), ["a", "b"]);
    assert.deepEqual(toPlainLines("a\n\n"), ["a", ""]);
    assert.deepEqual(toPlainLines("a"), ["a"]);
    assert.deepEqual(toPlainLines(""), []);
    assert.deepEqual(toPlainLines("\n"), [""]);
  });

  test("trailing blanks go, tabs and leading indentation stay", () => {
    assert.deepEqual(toPlainLines("  indented\tcol   \n"), ["  indented\tcol"]);
  });

  test("stray control characters are removed", () => {
    assert.deepEqual(toPlainLines("bell\x07 here\x1b\n"), ["bell here"]);
  });

  test("stripAnsi keeps newlines and unicode", () => {
    assert.equal(stripAnsi("\x1b[32m✓\x1b[39m é\n⎯"), "✓ é\n⎯");
  });
});

// ── masking ────────────────────────────────────────────────────────────────────────

describe("maskSecrets: masks", () => {
  const cases: [string, string, string][] = [
    ["bearer header", "> Authorization: Bearer abc123def456ghi789", "> Authorization: Bearer ****"],
    ["basic header", "> Authorization: Basic dXNlcjpwYXNzd29yZA==", "> Authorization: Basic ****"],
    [
      "header in curl -H",
      `curl -H "Authorization: token 0123456789abcdef" https://api.example.com`,
      `curl -H "Authorization: token ****" https://api.example.com`,
    ],
    ["lower-case header", "authorization: bearer Zm9vYmFyMTIz", "authorization: bearer ****"],
    ["bearer quoted alone", "retrying with Bearer 9f8e7d6c5b4a3210 …", "retrying with Bearer **** …"],
    ["curl -v credential header", "> X-Api-Key: abcdefgh", "> X-Api-Key: ****"],
    ["cookie header", "< set-cookie: sid=s%3Aabc123.def; Path=/; HttpOnly", "< set-cookie: ****"],
    ["env token", "API_TOKEN=s3cr3tvalue", "API_TOKEN=****"],
    ["export with quotes", `export DEPLOY_TOKEN="plain-words-are-secret-too"`, `export DEPLOY_TOKEN="****"`],
    ["env value that looks like code is still data", "NPM_TOKEN=abc.defghij", "NPM_TOKEN=****"],
    ["single quotes", "DB_PASSWORD='hunter2'", "DB_PASSWORD='****'"],
    ["aws secret", "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "AWS_SECRET_ACCESS_KEY=****"],
    ["aws key id by shape", "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE", "AWS_ACCESS_KEY_ID=****"],
    ["password=", "mysql --host=db password=hunter2 --verbose", "mysql --host=db password=**** --verbose"],
    ["secret=", "signing with secret=abcdef", "signing with secret=****"],
    ["api_key=", "api_key = 'k-1234'", "api_key = '****'"],
    ["apikey=", "APIKEY=zzzzzzzzzz", "APIKEY=****"],
    ["access_key", "access_key: AbCdEf0123", "access_key: ****"],
    ["camelCase name", "accessToken=abcdef123", "accessToken=****"],
    ["secret_key_base", "SECRET_KEY_BASE=a1b2c3d4", "SECRET_KEY_BASE=****"],
    ["--token flag", "oar login --token xyz", "oar login --token ****"],
    ["--api-key quoted", `tool --api-key "k 1 2"`, `tool --api-key "****"`],
    ["--password=", "psql --password=hunter2", "psql --password=****"],
    ["json password", `{"user": "bob", "password": "hunter2"}`, `{"user": "bob", "password": "****"}`],
    ["json apiKey compact", `{"apiKey":"abc","n":1}`, `{"apiKey":"****","n":1}`],
    ["json escaped quote", `{"client_secret": "a\\"b"}`, `{"client_secret": "****"}`],
    ["query string", "GET /cb?access_token=abc123&state=xyz 302", "GET /cb?access_token=****&state=xyz 302"],
    ["npmrc", "//registry.npmjs.org/:_authToken=abcdef0123456789", "//registry.npmjs.org/:_authToken=****"],
    ["yaml with digits", "  password: hunter2", "  password: ****"],
    ["util.inspect object", "{ user: 'bob', password: 'hunter' }", "{ user: 'bob', password: '****' }"],
    ["coloured util.inspect", "{ password: \x1b[32m'hunter'\x1b[39m }", "{ password: '****' }"],
    [
      "colour codes inside a header",
      "\x1b[1mAuthorization:\x1b[22m Bearer \x1b[33mabc123def456\x1b[39m",
      "Authorization: Bearer ****",
    ],
    ["anthropic key", "using sk-ant-api03-AbCdEf0123456789_xyzXYZ-abcdEFGH now", "using **** now"],
    ["openai project key", "OPENAI=sk-proj-0a1B2c3D4e5F6g7H8i9J0kLm", "OPENAI=****"],
    ["github classic", "pushed with ghp_1234567890abcdefghijABCDEFGHIJ123456", "pushed with ****"],
    ["github oauth", "gho_16C7e42F292c6912E7710c838347Ae178B4a", "****"],
    ["github fine-grained", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "****"],
    ["slack bot", "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOp", "****"],
    ["slack user", "token xoxp-1111-2222-3333-abcdef", "token ****"],
    ["google", "key AIzaSyA-1234567890abcdefghijklmnopqrstu ok", "key **** ok"],
    [
      "jwt",
      "id eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk end",
      "id **** end",
    ],
    [
      "url password",
      "connecting to postgres://app:s3cret@db.internal:5432/app",
      "connecting to postgres://app:****@db.internal:5432/app",
    ],
    [
      "git url token",
      "remote: https://x-access-token:abc123@github.com/o/r.git",
      "remote: https://x-access-token:****@github.com/o/r.git",
    ],
  ];
  for (const [name, input, expected] of cases) {
    test(name, () => assert.equal(maskSecrets(input), expected));
  }

  test("known secrets are masked wherever they appear, longest first", () => {
    const relay = "oar_rt_8f3a9c2e";
    const out = maskSecrets(`token ${relay}x1 and ${relay} in /tmp/${relay}/log`, [relay, `${relay}x1`]);
    assert.equal(out, `token **** and **** in /tmp/****/log`);
  });

  test("known secrets shorter than 4 characters are ignored", () => {
    assert.equal(maskSecrets("a 1 b 22 c abc", ["a", "22", "abc"]), "a 1 b 22 c abc");
  });

  test("PEM private key block keeps its armour lines", () => {
    const pem = [
      "key:",
      "-----BEGIN RSA PRIVATE KEY-----",
      "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun",
      "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK",
      "-----END RSA PRIVATE KEY-----",
      "done",
    ].join("\n");
    assert.equal(maskSecrets(pem), "key:\n-----BEGIN RSA PRIVATE KEY-----\n****\n-----END RSA PRIVATE KEY-----\ndone");
  });

  test("a PEM block cut off by the end of the capture is masked to the end", () => {
    const out = maskSecrets(
      "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\nAAAAAAAB",
    );
    assert.equal(out, "-----BEGIN OPENSSH PRIVATE KEY-----\n****");
  });

  test("several secrets on one line", () => {
    assert.equal(
      maskSecrets(
        "GITHUB_TOKEN=ghp_1234567890abcdefghijABCDEFGHIJ123456 NPM_TOKEN=npm_abcdefghijklmnopqrstuvwxyz0123456789",
      ),
      "GITHUB_TOKEN=**** NPM_TOKEN=****",
    );
  });

  test("raw output masked before toPlainLines (as the callers do) keeps CR progress and leaks nothing", () => {
    const raw = "\x1b[32mupload 50%\x1b[0m\rupload 100%\nAPI_TOKEN=\x1b[1mabcdef\x1b[22m\n";
    assert.deepEqual(toPlainLines(maskSecrets(raw)), ["upload 100%", "API_TOKEN=****"]);
  });

  test("masking twice changes nothing more", () => {
    const once = maskSecrets("API_TOKEN=abc123 https://u:p4ss@h/ Authorization: Bearer zz99zz99zz");
    assert.equal(maskSecrets(once), once);
    assert.ok(once.includes(MASK));
  });
});

describe("maskSecrets: leaves ordinary output alone", () => {
  const keep = [
    "✔ token refresh rotates the refresh token (1.2ms)",
    " ✓ src/auth/password-reset.test.ts > sends the reset email 4ms",
    "    ✓ rejects an expired token (3 ms)",
    "  ✓ token: refreshes when expired",
    "max_tokens=4096 temperature=0.2",
    "TOKEN_LIMIT=5",
    "tokens: 1234",
    "usage: { input_tokens: 812, output_tokens: 96 }",
    "password_file=/run/secrets/db",
    "commit 3f2a9c1e4b7d8a0f6e5c2b1a9d8e7f6a5b4c3d2e",
    "Merge: 3f2a9c1 8b7e6d5",
    "request 550e8400-e29b-41d4-a716-446655440000 took 12ms",
    "/home/user/project/src/auth/token.ts:12:5",
    "src/secrets/manager.test.ts",
    "risk-assessment-framework-v2-final-0001 passed",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell variable reference, text the masker must leave alone
    "TOKEN=${TOKEN}",
    "GITHUB_TOKEN=$GITHUB_TOKEN npm publish",
    "password=",
    `{"password": "", "token": null}`,
    "    > 12 |   const token = createToken(user);",
    "    if (token == null) throw new Error('no token')",
    "const password = process.env.DB_PASSWORD",
    "tokens.map(token => token.trim())",
    "Authorization failed: missing header",
    "authorization: required",
    "Bearer tokens are accepted",
    "      Tests  2 failed | 412 passed (414)",
    "   Duration  1.02s (transform 91ms, setup 0ms)",
    "git@github.com:owner/repo.git",
    "https://github.com/owner/repo/pull/42",
    "--token <token>   the relay token",
    "ask-user-question-dialog-component-v2",
    'API_TOKEN="\nnext line "quoted"',
    "> Accept: */*\n> User-Agent: curl/8.5.0",
    "",
  ];
  for (const line of keep) {
    test(JSON.stringify(line), () => assert.equal(maskSecrets(line), line));
  }
});

// ── tail ───────────────────────────────────────────────────────────────────────────

describe("tailLines", () => {
  test("short output: everything, not truncated", () => {
    assert.deepEqual(tailLines(["a", "b"], 50), { tail: ["a", "b"], truncated: false });
    assert.deepEqual(tailLines([], 50), { tail: [], truncated: false });
  });

  test("keeps the last n lines and says more came before", () => {
    const lines = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`);
    assert.deepEqual(tailLines(lines, 3), { tail: ["line 8", "line 9", "line 10"], truncated: true });
    assert.deepEqual(tailLines(lines, 10), { tail: lines, truncated: false });
  });

  test("consecutive identical lines collapse to one with [×N]", () => {
    const lines = ["start", "retrying…", "retrying…", "retrying…", "retrying…", "retrying…", "done"];
    assert.deepEqual(tailLines(lines, 50).tail, ["start", "retrying… [×5]", "done"]);
  });

  test("identical lines that are not adjacent stay separate", () => {
    assert.deepEqual(collapseRepeats(["a", "b", "a"]), ["a", "b", "a"]);
  });

  test("a run straddling the window edge is collapsed first and counted whole", () => {
    const lines = ["a", "b", "r", "r", "r", "r", "r"];
    assert.deepEqual(tailLines(lines, 2), { tail: ["b", "r [×5]"], truncated: true });
    assert.deepEqual(tailLines(lines, 1), { tail: ["r [×5]"], truncated: true });
    assert.deepEqual(tailLines(lines, 3), { tail: ["a", "b", "r [×5]"], truncated: false });
  });

  test("a run at the start of the window is not cut into a partial count", () => {
    const lines = ["x", "x", "x", "x", "y", "z"];
    assert.deepEqual(tailLines(lines, 3), { tail: ["x [×4]", "y", "z"], truncated: false });
    assert.deepEqual(tailLines(lines, 2), { tail: ["y", "z"], truncated: true });
  });

  test("repeated empty lines read [×N] without a stray space", () => {
    assert.deepEqual(collapseRepeats(["a", "", "", "", "b"]), ["a", "[×3]", "b"]);
  });

  test("n is clamped to 1..500", () => {
    const many = Array.from({ length: 600 }, (_, i) => String(i));
    assert.equal(tailLines(many, 1000).tail.length, 500);
    assert.deepEqual(tailLines(many, 0).tail, ["599"]);
    assert.deepEqual(tailLines(many, -5).tail, ["599"]);
    assert.deepEqual(tailLines(many, 2.7).tail, ["598", "599"]);
    assert.equal(clampTailSize(Number.NaN), 50);
    assert.equal(clampTailSize(Number.POSITIVE_INFINITY), 500);
  });
});

// ── test counts ────────────────────────────────────────────────────────────────────

describe("testCounts: vitest", () => {
  test("summary line is final", () => {
    assert.deepEqual(counts(VITEST), { runner: "vitest", passed: 4, failed: 1, skipped: 2, final: true });
  });

  test("the example's numbers", () => {
    const raw =
      " Test Files  1 failed | 40 passed (41)\n      Tests  2 failed | 412 passed (414)\n   Start at  09:12:00\n";
    assert.deepEqual(counts(raw), { runner: "vitest", passed: 412, failed: 2, skipped: 0, final: true });
  });

  test("while running, file lines count their tests and their listed tests are not counted again", () => {
    const running = VITEST.slice(0, VITEST.indexOf("Failed Tests"));
    assert.deepEqual(counts(running), { runner: "vitest", passed: 4, failed: 1, skipped: 2, final: false });
  });

  test("while running with the verbose reporter, ✓ × ↓ □ lines count", () => {
    assert.deepEqual(counts(VITEST_VERBOSE_RUNNING), {
      runner: "vitest",
      passed: 3,
      failed: 1,
      skipped: 2,
      final: false,
    });
  });

  test("older vitest file lines (two spaces, all passed) count too", () => {
    const raw =
      "\n RUN  v1.6.0 /home/dev/app\n\n ✓ src/utils.test.ts  (12 tests) 8ms\n ✓ src/api.test.ts  (30 tests | 2 skipped) 1.20s\n";
    assert.deepEqual(counts(raw), { runner: "vitest", passed: 40, failed: 0, skipped: 2, final: false });
  });

  test("just started: the RUN header says vitest, nothing counted yet", () => {
    assert.deepEqual(counts(VITEST.slice(0, VITEST.indexOf(" \x1b[31m❯"))), {
      runner: "vitest",
      passed: 0,
      failed: 0,
      skipped: 0,
      final: false,
    });
  });
});

describe("testCounts: jest", () => {
  test("summary line is final", () => {
    assert.deepEqual(counts(JEST_VERBOSE), { runner: "jest", passed: 4, failed: 1, skipped: 2, final: true });
  });

  test("the brief's summary line", () => {
    assert.deepEqual(counts("Tests:       2 failed, 1 skipped, 412 passed, 415 total\n"), {
      runner: "jest",
      passed: 412,
      failed: 2,
      skipped: 1,
      final: true,
    });
  });

  test("verbose, while running: ✓ ✕ ○ ✎ lines count", () => {
    const running = JEST_VERBOSE.slice(0, JEST_VERBOSE.indexOf("\x1b[1mTest Suites"));
    assert.deepEqual(counts(running), { runner: "jest", passed: 4, failed: 1, skipped: 2, final: false });
  });

  test("PASS/FAIL file lines are not test counts", () => {
    assert.deepEqual(counts(JEST_DEFAULT_RUNNING), { runner: "jest", passed: 0, failed: 0, skipped: 0, final: false });
  });
});

describe("testCounts: node:test", () => {
  test("spec reporter summary is final (todo and skipped both count as skipped)", () => {
    assert.deepEqual(counts(NODE_SPEC), { runner: "node:test", passed: 3, failed: 1, skipped: 2, final: true });
  });

  test("spec reporter while running: suites' closing lines are not tests", () => {
    const running = NODE_SPEC.slice(0, NODE_SPEC.indexOf("▶ parent"));
    // adds ✔, fails ✖, skipped ﹣, todo ✔ # TODO; "✖ math" closes the suite.
    assert.deepEqual(counts(running), { runner: "node:test", passed: 1, failed: 1, skipped: 2, final: false });
  });

  test("TAP summary is final", () => {
    assert.deepEqual(counts(NODE_TAP), { runner: "node:test", passed: 3, failed: 1, skipped: 2, final: true });
  });

  test("TAP while running: ok / not ok lines count, a suite's own line does not", () => {
    const running = NODE_TAP.slice(0, NODE_TAP.indexOf("1..2"));
    // adds, child, parent pass; fails fails; skip and todo; "not ok 1 - math" is a suite.
    assert.deepEqual(counts(running), { runner: "node:test", passed: 3, failed: 1, skipped: 2, final: false });
  });

  test("cancelled tests are failures", () => {
    const raw = "# tests 5\n# suites 0\n# pass 3\n# fail 1\n# cancelled 1\n# skipped 0\n# todo 0\n";
    assert.deepEqual(counts(raw), { runner: "node:test", passed: 3, failed: 2, skipped: 0, final: true });
  });

  test("final summary wins over the failing-tests replay after it", () => {
    const tail = `${NODE_SPEC}✖ another (1.0ms)\n`;
    assert.equal(counts(tail)?.failed, 1);
  });
});

describe("testCounts: pytest", () => {
  test("summary line is final (xfailed skipped)", () => {
    assert.deepEqual(counts(PYTEST), { runner: "pytest", passed: 4, failed: 1, skipped: 2, final: true });
  });

  test("the brief's summary line", () => {
    assert.deepEqual(counts("===== 2 failed, 412 passed, 3 skipped in 1.2s =====\n"), {
      runner: "pytest",
      passed: 412,
      failed: 2,
      skipped: 3,
      final: true,
    });
  });

  test("-q summary without rules, with errors and warnings", () => {
    assert.deepEqual(
      counts("..E.F                                     [100%]\n1 failed, 3 passed, 2 warnings, 1 error in 0.42s\n"),
      {
        runner: "pytest",
        passed: 3,
        failed: 2,
        skipped: 0,
        final: true,
      },
    );
  });

  test("long runs: summary with minutes", () => {
    assert.equal(counts("======= 1290 passed, 4 skipped in 65.20s (0:01:05) =======\n")?.passed, 1290);
  });

  test("progress lines count while running, including a line still being written", () => {
    const running = `${PYTEST.slice(0, PYTEST.indexOf("tests/test_more.py"))}tests/test_more.py .`;
    assert.deepEqual(counts(running), { runner: "pytest", passed: 3, failed: 1, skipped: 2, final: false });
  });

  test("verbose PASSED/FAILED lines count while running", () => {
    assert.deepEqual(counts(PYTEST_VERBOSE), { runner: "pytest", passed: 2, failed: 1, skipped: 2, final: false });
  });

  test("the short summary's FAILED lines are not tests", () => {
    const raw =
      "collected 2 items\n\nFAILED tests/test_a.py::test_x - assert 1 == 2\nFAILED tests/test_a.py::test_y - KeyError\n";
    assert.deepEqual(counts(raw), { runner: "pytest", passed: 0, failed: 0, skipped: 0, final: false });
  });

  test("pytest-xdist worker lines count while running", () => {
    const raw =
      "created: 4/4 workers\n[gw0] [ 25%] PASSED tests/test_a.py::test_one\n[gw1] [ 50%] FAILED tests/test_a.py::test_two\n[gw2] [ 75%] SKIPPED tests/test_b.py::test_three\n";
    assert.deepEqual(counts(raw), { runner: "pytest", passed: 1, failed: 1, skipped: 1, final: false });
  });

  test("no tests ran", () => {
    assert.deepEqual(
      counts("collected 0 items\n\n============================ no tests ran in 0.01s =============================\n"),
      {
        runner: "pytest",
        passed: 0,
        failed: 0,
        skipped: 0,
        final: true,
      },
    );
  });
});

describe("testCounts: mocha", () => {
  test("passing / pending / failing summary is final", () => {
    assert.deepEqual(counts(MOCHA), { runner: "mocha", passed: 2, failed: 1, skipped: 2, final: true });
  });

  test("while running: ✔, numbered failures and pending lines count", () => {
    const running = MOCHA.slice(0, MOCHA.indexOf("\x1b[92m"));
    assert.deepEqual(counts(running), { runner: "mocha", passed: 2, failed: 1, skipped: 2, final: false });
  });
});

describe("testCounts: go", () => {
  test("--- PASS/FAIL/SKIP lines count, subtests included; go prints no totals", () => {
    assert.deepEqual(counts(GO), { runner: "go", passed: 3, failed: 1, skipped: 1, final: false });
  });

  test("non-verbose: package lines say go, only failures are listed", () => {
    const raw =
      "--- FAIL: TestSub (0.00s)\n    calc_test.go:14: want 2\nFAIL\nFAIL\texample.com/calc\t0.002s\nok  \texample.com/calc/parse\t(cached)\n";
    assert.deepEqual(counts(raw), { runner: "go", passed: 0, failed: 1, skipped: 0, final: false });
  });
});

describe("testCounts: choosing and declining", () => {
  test("nothing test-like gives null", () => {
    assert.equal(testCounts([]), null);
    assert.equal(counts("npm install\nadded 213 packages in 4s\n\n42 packages are looking for funding\n"), null);
    assert.equal(counts("Compiling oar v0.9.19\nFinished in 3.2s\n"), null);
  });

  test("a build tool's ✓ lines are not a test run", () => {
    const vite =
      "vite v5.4.0 building for production...\n✓ 42 modules transformed.\ndist/index.html  0.46 kB\n✓ built in 1.23s\n";
    assert.equal(counts(vite), null);
  });

  test("markdown bullets and numbered lists are not mocha", () => {
    assert.equal(counts("Changes:\n  - fixed the parser\n  - added tests\n  1) first\n  2) second\n"), null);
  });

  test("a final summary wins over in-progress counting of another runner after it", () => {
    const raw = `${toPlainLines(JEST_VERBOSE).join("\n")}\n ✓ src/a.test.ts > adds 2ms\n`;
    assert.equal(counts(raw)?.runner, "jest");
    assert.equal(counts(raw)?.final, true);
  });

  test("watch mode: the latest summary is the one reported", () => {
    const first = "      Tests  1 failed | 9 passed (10)\n";
    const second = "      Tests  10 passed (10)\n";
    assert.deepEqual(counts(`${first} RERUN  src/a.ts\n${second}`), {
      runner: "vitest",
      passed: 10,
      failed: 0,
      skipped: 0,
      final: true,
    });
  });

  test("two runners in one script: the later finished one is reported", () => {
    const raw = toPlainLines(PYTEST).concat(toPlainLines(VITEST));
    assert.equal(testCounts(raw)?.runner, "vitest");
    const reversed = toPlainLines(VITEST).concat(toPlainLines(PYTEST));
    assert.equal(testCounts(reversed)?.runner, "pytest");
  });

  test("npm noise around a run does not matter", () => {
    const raw = `\n> oar@0.9.19 test\n> vitest run\n\n${VITEST}npm error code 1\n`;
    assert.equal(counts(raw)?.runner, "vitest");
    assert.equal(counts(raw)?.final, true);
  });
});

test("pathological input stays fast (no regex backtracking blow-up)", () => {
  const started = Date.now();
  for (const line of [
    "a.".repeat(100_000),
    `✔ ${" ".repeat(50_000)}x`,
    `token${"_".repeat(100_000)}`,
    `sk-${"a".repeat(100_000)}`,
    '"'.repeat(50_000),
  ]) {
    maskSecrets(line);
    testCounts(toPlainLines(line));
  }
  assert.ok(Date.now() - started < 3000);
});

// ── together ───────────────────────────────────────────────────────────────────────

test("raw output → plain lines → masked → tail, as read_task_output composes them", () => {
  const raw =
    "\x1b[36m$ deploy\x1b[39m\r\n" +
    "Uploading  20%\rUploading  80%\rUploading 100%\r\n" +
    "using \x1b[1mGITHUB_TOKEN=ghp_1234567890abcdefghijABCDEFGHIJ123456\x1b[22m\n" +
    "waiting for rollout…\n".repeat(4) +
    "relay token oar_rt_5e1f77aa seen\n";
  const plain = toPlainLines(raw);
  const masked = maskSecrets(plain.join("\n"), ["oar_rt_5e1f77aa"]).split("\n");
  assert.deepEqual(tailLines(masked, 3), {
    tail: ["using GITHUB_TOKEN=****", "waiting for rollout… [×4]", "relay token **** seen"],
    truncated: true,
  });
});
