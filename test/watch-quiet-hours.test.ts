// quiet_hours arithmetic (seed §9 "Clock changes"), instant by instant, including the known
// limit of a `from` inside the repeated hour. The relay tests (watch-fewer) show the same
// rules end to end; these pin every edge without a relay.
import { test } from "node:test";
import assert from "node:assert/strict";
import { QuietWindow, parseQuietHours } from "../src/watching/quiet-hours.ts";

const at = (s: string) => Date.parse(s);
const w = (from: string, to: string, tz = "Europe/Berlin") => new QuietWindow({ from, to, tz });

test("a window across midnight, in local time", () => {
  const q = w("23:00", "06:00");
  assert.equal(q.inside(at("2026-06-10T20:59:59Z")), false); // 22:59:59 CEST
  assert.equal(q.inside(at("2026-06-10T21:00:00Z")), true);
  assert.equal(q.shift(at("2026-06-10T21:00:00Z")), at("2026-06-11T04:00:00Z"));
  assert.equal(q.shift(at("2026-06-11T02:00:00Z")), at("2026-06-11T04:00:00Z"));
  assert.equal(q.inside(at("2026-06-11T04:00:00Z")), false);
  assert.equal(q.shift(at("2026-06-11T12:00:00Z")), at("2026-06-11T12:00:00Z"));
  // Winter: the same local window is an hour later in UTC.
  assert.equal(q.shift(at("2026-12-01T23:30:00Z")), at("2026-12-02T05:00:00Z"));
});

test("2026-03-29: `to` inside the skipped hour ends the window at the jump", () => {
  const q = w("01:00", "02:30");
  assert.equal(q.inside(at("2026-03-28T23:59:59Z")), false); // 00:59:59 CET
  assert.equal(q.inside(at("2026-03-29T00:00:00Z")), true);
  assert.equal(q.shift(at("2026-03-29T00:10:00Z")), at("2026-03-29T01:00:00Z"));
  assert.equal(q.inside(at("2026-03-29T01:00:00Z")), false); // 03:00 CEST
  // A window across the jump whose `to` exists ends at that `to` in summer time.
  assert.equal(w("23:00", "06:00").shift(at("2026-03-28T23:00:00Z")), at("2026-03-29T04:00:00Z"));
  // A `from` in the skipped hour starts the window at the jump.
  const late = w("02:30", "05:00");
  assert.equal(late.inside(at("2026-03-29T00:59:59Z")), false);
  assert.equal(late.inside(at("2026-03-29T01:00:00Z")), true);
});

test("2026-10-25: `to` occurs twice, the window ends at the first and is not entered again", () => {
  const q = w("01:00", "02:30");
  assert.equal(q.inside(at("2026-10-24T23:00:00Z")), true); // 01:00 CEST
  assert.equal(q.shift(at("2026-10-25T00:00:00Z")), at("2026-10-25T00:30:00Z")); // first 02:30 (CEST)
  assert.equal(q.inside(at("2026-10-25T00:30:00Z")), false);
  assert.equal(q.inside(at("2026-10-25T01:00:00Z")), false); // 02:00 CET, the repeated hour
  assert.equal(q.inside(at("2026-10-25T01:29:59Z")), false);
  assert.equal(q.inside(at("2026-10-25T01:30:00Z")), false);
});

test("known limit: a `from` in the repeated hour starts on the first pass; before `from` on the second pass is outside", () => {
  const q = w("02:30", "05:00");
  assert.equal(q.inside(at("2026-10-25T00:29:59Z")), false); // 02:29:59 CEST
  assert.equal(q.inside(at("2026-10-25T00:30:00Z")), true); // 02:30 CEST, first pass
  assert.equal(q.shift(at("2026-10-25T00:45:00Z")), at("2026-10-25T01:00:00Z")); // ends when 03:00 CEST becomes 02:00 CET
  assert.equal(q.inside(at("2026-10-25T01:15:00Z")), false); // 02:15 CET, second pass, before from
  assert.equal(q.inside(at("2026-10-25T01:30:00Z")), true); // 02:30 CET
  assert.equal(q.shift(at("2026-10-25T01:30:00Z")), at("2026-10-25T04:00:00Z")); // 05:00 CET
});

test("the validation messages, word for word", () => {
  const msg = (v: unknown) => {
    try {
      parseQuietHours(v);
      return "ok";
    } catch (e) {
      return (e as Error).message;
    }
  };
  assert.equal(
    msg({ from: "23:00", to: "6:00", tz: "UTC" }),
    'quiet_hours from and to must be times of day as "HH:MM" (00:00 to 23:59). Nothing was subscribed.',
  );
  assert.equal(
    msg({ from: "23:00", to: "23:00", tz: "UTC" }),
    "quiet_hours from and to must differ. Nothing was subscribed.",
  );
  assert.equal(
    msg({ from: "23:00", to: "06:00", tz: "Berlin" }),
    'quiet_hours tz "Berlin" is not an IANA time zone (for example "Europe/Berlin", "America/New_York", "UTC"). Nothing was subscribed.',
  );
  assert.equal(parseQuietHours({ from: "", to: "", tz: "" }), null);
  assert.deepEqual(parseQuietHours({ from: "23:00", to: "06:00", tz: "europe/berlin" }), {
    from: "23:00",
    to: "06:00",
    tz: "Europe/Berlin",
  });
});
