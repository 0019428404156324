// iso() (src/core/clock.ts) formats epoch milliseconds itself for speed: it must say exactly
// what Date#toISOString says, for every instant the store can hold and the odd ones too.

import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { iso } from "../src/core/clock.ts";

test("iso is Date#toISOString for every millisecond from 1970 to 9999", () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 253402300799999 }), (ms) =>
      assert.equal(iso(ms), new Date(ms).toISOString()),
    ),
    { numRuns: 20000 },
  );
});

test("iso at the edges of days, years and the range, and for what it hands to Date", () => {
  const edges = [
    0, 1, 999, 1000, 59_999, 60_000, 3_599_999, 3_600_000, 86_399_999, 86_400_000, 951_782_400_000, 951_868_799_999,
    1_767_225_599_999, 1_767_225_600_000, 253402300799999, 253402300800000, -1, -86_400_001, 1.5,
  ];
  for (const ms of edges) assert.equal(iso(ms), new Date(ms).toISOString(), String(ms));
  assert.equal(iso(null), null);
  assert.equal(iso(undefined), null);
  // The same day again (kept) gives the same text as the first time.
  assert.equal(iso(1_733_059_200_123), iso(1_733_059_200_123));
});
