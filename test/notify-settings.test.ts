// The `notify` setting (contract §10.3) as phase B plugs it into core/settings.ts: its schema
// and defaults, a PATCH that keeps secrets given as `****` and removes them with "" or null,
// refusals that name the field and never echo a secret, and the masked view.
import { test } from "node:test";
import assert from "node:assert/strict";
import { RelayError } from "../src/core/errors.ts";
import {
  applyNotifyPatch,
  DEFAULT_NOTIFY,
  maskNotify,
  NotifySettings,
  notifySecretValues,
} from "../src/core/notify-settings.ts";

const refused = (patch: unknown, words: RegExp, current = DEFAULT_NOTIFY) =>
  assert.throws(
    () => applyNotifyPatch(current, patch),
    (e: unknown) =>
      e instanceof RelayError &&
      e.code === "REMOTE_RELAY_INVALID_INPUT" &&
      words.test(e.message) &&
      e.message.endsWith("Nothing was changed."),
  );

test("defaults: Web Push on, nothing else, finished turns not notified, no quiet hours", () => {
  assert.deepEqual(DEFAULT_NOTIFY, {
    webPush: true,
    ntfyUrl: null,
    webhookUrl: null,
    webhookSecret: null,
    turnsDone: false,
    quietHours: null,
    publicUrl: null,
  });
  assert.deepEqual(NotifySettings.parse(DEFAULT_NOTIFY), DEFAULT_NOTIFY);
  // A setting stored before publicUrl existed still reads whole.
  const { publicUrl: _, ...older } = { ...DEFAULT_NOTIFY, webhookUrl: "https://hooks.example.com/oar" };
  assert.deepEqual(NotifySettings.parse(older), { ...older, publicUrl: null });
});

test("publicUrl: the page's address alone; '' removes it; a fragment, query or credentials are refused", () => {
  const set = applyNotifyPatch(DEFAULT_NOTIFY, { publicUrl: "https://oar.example.ts.net/" });
  assert.equal(set.publicUrl, "https://oar.example.ts.net/");
  assert.equal(applyNotifyPatch(set, { publicUrl: "" }).publicUrl, null);
  for (const bad of ["https://oar.example.ts.net/#token=abc", "https://me:pw@oar.example/", "https://oar.example/?t=1"])
    refused({ publicUrl: bad }, /^Setting notify\.publicUrl is not valid: it must be the page's address alone/);
  refused(
    { publicUrl: "oar.example" },
    /^Setting notify\.publicUrl is not valid: it must be an http:\/\/ or https:\/\//,
  );
});

test("a patch changes the fields it names; **** keeps a secret, '' or null removes it; the zone is canonicalised", () => {
  const set = applyNotifyPatch(DEFAULT_NOTIFY, {
    ntfyUrl: "https://ntfy.sh/oar-7d2",
    webhookUrl: "https://hooks.example.com/oar",
    webhookSecret: "  s3cret ",
    quietHours: { from: "22:00", to: "07:00", tz: "europe/berlin" },
  });
  assert.deepEqual(set, {
    ...DEFAULT_NOTIFY,
    ntfyUrl: "https://ntfy.sh/oar-7d2",
    webhookUrl: "https://hooks.example.com/oar",
    webhookSecret: "s3cret",
    quietHours: { from: "22:00", to: "07:00", tz: "Europe/Berlin" },
  });
  const view = maskNotify(set);
  assert.equal(view.ntfyUrl, "****");
  assert.equal(view.webhookSecret, "****");
  assert.equal(view.webhookUrl, "https://hooks.example.com/oar");
  assert.deepEqual(notifySecretValues(set), ["https://ntfy.sh/oar-7d2", "s3cret"]);
  // What GET showed, sent back with one change: the secrets stay.
  assert.deepEqual(applyNotifyPatch(set, { ...view, turnsDone: true }), { ...set, turnsDone: true });
  assert.deepEqual(
    applyNotifyPatch(set, {
      ntfyUrl: "",
      webhookSecret: null,
      webhookUrl: "",
      quietHours: { from: "", to: "", tz: "" },
    }),
    {
      ...DEFAULT_NOTIFY,
    },
  );
});

test("bad values are refused naming the field, and a secret's value is never echoed", () => {
  refused(
    { quietHours: { from: "22:00", to: "07:00", tz: "Berlin" } },
    /^Setting notify\.quietHours is not valid: tz "Berlin" is not an IANA time zone/,
  );
  refused({ quietHours: { from: "22:00", to: "07:00", tz: "+01:00" } }, /notify\.quietHours .*not an IANA/);
  refused(
    { quietHours: { from: "7:00", to: "22:00", tz: "UTC" } },
    /notify\.quietHours is not valid: from must be a time of day/,
  );
  refused({ quietHours: { from: "07:00", to: "07:00", tz: "UTC" } }, /from and to must differ/);
  refused({ quietHours: { from: 5, to: "07:00", tz: "UTC" } }, /notify\.quietHours is not valid: from must be text/);
  refused(
    { webhookUrl: "ftp://x" },
    /^Setting notify\.webhookUrl is not valid: it must be an http:\/\/ or https:\/\/ address/,
  );
  refused({ turnsDone: "yes" }, /notify\.turnsDone is not valid: it must be true or false/);
  refused({ loud: true }, /^Setting notify is not valid: unknown field: loud/);
  refused(["x"], /^Setting notify is not valid: it must be an object/);
  const leaky = "not a url but a secret-9f2";
  assert.throws(
    () => applyNotifyPatch(DEFAULT_NOTIFY, { ntfyUrl: leaky }),
    (e: unknown) => e instanceof RelayError && /notify\.ntfyUrl/.test(e.message) && !e.message.includes(leaky),
  );
  assert.throws(
    () => applyNotifyPatch(DEFAULT_NOTIFY, { webhookSecret: "x".repeat(5000) }),
    (e: unknown) =>
      e instanceof RelayError &&
      /notify\.webhookSecret is not valid: it must be text/.test(e.message) &&
      !e.message.includes("xxxx"),
  );
});
