// create_session's groupWarning (relay_tool §8.2): the session was made but did not join the
// requested group. On this relay the join is part of the start, so this is the shape a target
// that created the session without the group (e.g. a paired relay) is reported with.
import { test } from "node:test";
import assert from "node:assert/strict";
import { withGroupWarning } from "../src/groups/warning.ts";

const base = { summary: "create_session → desk session ses_1: done", status: "done" };
const asked = { id: "grp_a", name: "Release 2.4" };

test("joined as asked, or no group asked: the result is unchanged", () => {
  assert.deepEqual(withGroupWarning(base, asked, { id: "grp_a", name: "Release 2.4", role: "member" }), base);
  assert.deepEqual(withGroupWarning(base, null, null), base);
});

test("created but not in the group: groupWarning, summary ending (no group: …), note asking to tell the user", () => {
  const r = withGroupWarning({ ...base, note: "Waited 10 s." }, asked, null);
  assert.equal(
    r.groupWarning,
    'The session was created but did not join session group "Release 2.4" (grp_a): it joined no group.',
  );
  assert.equal(r.summary, "create_session → desk session ses_1: done (no group: it joined no group)");
  assert.equal(
    r.note,
    'Waited 10 s. Tell the user that the session is not in group "Release 2.4"; they can move it by hand.',
  );
  const other = withGroupWarning(base, asked, { id: "grp_b", name: "Other" }, "the target relay refused the group");
  assert.match(other.summary, /\(no group: the target relay refused the group\)$/);
});
