// The `budgets` setting (contract §10.4): scope, target, period and limits, checked with
// refusals that name the field and change nothing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseBudgets, MAX_BUDGETS } from "../src/core/budget-schema.ts";

const refusal = (message: string) => ({ name: "RelayError", code: "REMOTE_RELAY_INVALID_INPUT", message });

test("a budget list as the owner sets it: ids kept or made, target null for the relay, each limit or null", () => {
  const list = parseBudgets([
    { id: "daily", scope: "relay", period: "day", usd: 1 },
    { scope: "provider", target: "deepseek", period: "month", tokens: 5_000_000 },
    { id: "g.release-2", scope: "group", target: "grp_abc", period: "total", usd: 20, tokens: 100 },
    { id: "s", scope: "session", target: " ses_1 ", period: "day", usd: 0.5, tokens: null },
    { id: "r2", scope: "relay", target: "", period: "month", usd: 3 },
  ]);
  assert.deepEqual(list[0], { id: "daily", scope: "relay", target: null, period: "day", usd: 1, tokens: null });
  assert.match(list[1].id, /^bud_[0-9a-z]{12}$/);
  assert.deepEqual(
    { ...list[1], id: "" },
    { id: "", scope: "provider", target: "deepseek", period: "month", usd: null, tokens: 5_000_000 },
  );
  assert.deepEqual(list[2], {
    id: "g.release-2",
    scope: "group",
    target: "grp_abc",
    period: "total",
    usd: 20,
    tokens: 100,
  });
  assert.equal(list[3].target, "ses_1");
  assert.equal(list[4].target, null);
  assert.deepEqual(parseBudgets([]), []);
  // What was stored parses to itself (ids made once).
  assert.deepEqual(parseBudgets(JSON.parse(JSON.stringify(list))), list);
});

test("refusals name the field and say what is wrong", () => {
  const cases: [unknown, string][] = [
    [{ scope: "relay" }, "Setting budgets is not valid: it must be a list. Nothing was changed."],
    [
      [{ scope: "planet", period: "day", usd: 1 }],
      'Setting budgets[0].scope is not valid: it must be one of: "relay", "provider", "group", "session". Nothing was changed.',
    ],
    [
      [{ scope: "relay", period: "week", usd: 1 }],
      'Setting budgets[0].period is not valid: it must be one of: "day", "month", "total". Nothing was changed.',
    ],
    [
      [{ scope: "relay", period: "day", usd: -1 }],
      "Setting budgets[0].usd is not valid: it must be more than 0. Nothing was changed.",
    ],
    [
      [{ scope: "relay", period: "day", usd: 0 }],
      "Setting budgets[0].usd is not valid: it must be more than 0. Nothing was changed.",
    ],
    [
      [{ scope: "relay", period: "day", usd: "5" }],
      "Setting budgets[0].usd is not valid: it must be a number. Nothing was changed.",
    ],
    [
      [{ scope: "relay", period: "day", tokens: 2.5 }],
      "Setting budgets[0].tokens is not valid: it must be a whole number. Nothing was changed.",
    ],
    [
      [{ scope: "relay", period: "day" }],
      "Setting budgets[0] is not valid: it needs a limit: usd, tokens or both. Nothing was changed.",
    ],
    [
      [{ scope: "relay", period: "day", usd: 1, cap: 3 }],
      "Setting budgets[0] is not valid: unknown field: cap. Nothing was changed.",
    ],
    [
      [{ scope: "relay", target: "deepseek", period: "day", usd: 1 }],
      "Setting budgets[0].target is not valid: a relay budget takes no target. Nothing was changed.",
    ],
    [
      [{ scope: "group", period: "day", usd: 1 }],
      "Setting budgets[0].target is not valid: a group budget needs a target: the group id. Nothing was changed.",
    ],
    [
      [{ id: "has space", scope: "relay", period: "day", usd: 1 }],
      "Setting budgets[0].id is not valid: id must be 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit. Nothing was changed.",
    ],
    [
      [
        { id: "a", scope: "relay", period: "day", usd: 1 },
        { id: "a", scope: "relay", period: "month", usd: 1 },
      ],
      'Setting budgets[1].id is not valid: another budget already has the id "a". Nothing was changed.',
    ],
    [
      [{ scope: "relay", period: "day", usd: 1 }, "daily"],
      "Setting budgets[1] is not valid: it must be an object. Nothing was changed.",
    ],
  ];
  for (const [value, message] of cases)
    assert.throws(() => parseBudgets(value), refusal(message), JSON.stringify(value));
  const many = Array.from({ length: MAX_BUDGETS + 1 }, () => ({ scope: "relay", period: "day", usd: 1 }));
  assert.throws(
    () => parseBudgets(many),
    refusal(`Setting budgets is not valid: it is longer than ${MAX_BUDGETS} entries. Nothing was changed.`),
  );
});

test("a target naming nothing on this relay is refused when the relay can tell", () => {
  const known = {
    isProvider: (id: string) => id === "deepseek",
    isGroup: (id: string) => id === "grp_a",
    isSession: (id: string) => id === "ses_a",
  };
  assert.equal(parseBudgets([{ scope: "provider", target: "deepseek", period: "day", usd: 1 }], known).length, 1);
  assert.throws(
    () => parseBudgets([{ scope: "provider", target: "deepsek", period: "day", usd: 1 }], known),
    refusal('Setting budgets[0].target is not valid: no provider "deepsek" on this relay. Nothing was changed.'),
  );
  assert.throws(
    () => parseBudgets([{ scope: "group", target: "grp_b", period: "day", usd: 1 }], known),
    refusal('Setting budgets[0].target is not valid: no group "grp_b" on this relay. Nothing was changed.'),
  );
  assert.throws(
    () => parseBudgets([{ scope: "session", target: "ses_b", period: "day", usd: 1 }], known),
    refusal('Setting budgets[0].target is not valid: no session "ses_b" on this relay. Nothing was changed.'),
  );
});
