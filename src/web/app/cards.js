// Cards that wait for the owner: approval cards (Allow / Deny) and agents' questions
// (option buttons plus a free answer). Used in the conversation and in the Inbox.
import { h, fmtTime, icon } from "./dom.js";

/** Runs an action with every button of the card disabled, so a double click decides once. */
async function busy(card, fn) {
  const controls = card.querySelectorAll("button, input, textarea");
  controls.forEach((b) => {
    b.disabled = true;
  });
  try {
    await fn();
  } catch {
    controls.forEach((b) => {
      b.disabled = false;
    });
  }
}

export function approvalCard(c, ctx, extra = null) {
  if (c.kind === "budget") return budgetCard(c, ctx, extra);
  const card = h("section", {
    class: "card card-approval",
    role: "group",
    "aria-label": `Approval: ${c.action ?? c.kind}`,
  });
  const decide = (decision) =>
    busy(card, () =>
      ctx
        .call("POST", `/api/cards/${encodeURIComponent(c.id)}`, { decision })
        .then(() => ctx.changed({ cards: true, sessionId: c.session })),
    );
  const [title] = c.text.split("?");
  // A CLI's permission request: its detail says all the details list does, and readably.
  const permission = c.kind === "permission" && c.detail;
  card.append(
    ...[
      h("div", { class: "card-kicker" }, icon("radio-tower"), "Approval needed", extra),
      h("h3", { class: "card-title" }, permission ? permissionTitle(c) : c.details?.length ? `${title}?` : c.text),
      c.details?.length && !permission
        ? h(
            "ul",
            { class: "card-details" },
            c.details.map((d) => h("li", {}, d)),
          )
        : null,
      c.detail ? detailBlock(c.detail) : null,
      c.targetSession && !c.text.includes(c.targetSession)
        ? h("p", { class: "card-detail" }, `Session: ${c.targetTitle ? `“${c.targetTitle}” ` : ""}(${c.targetSession})`)
        : null,
      c.reasons?.length ? h("p", { class: "card-reasons" }, `Asked because: ${c.reasons.join("; ")}`) : null,
      c.expiresAt ? h("p", { class: "card-expires" }, `Times out at ${fmtTime(c.expiresAt)} if nobody decides.`) : null,
      h(
        "div",
        { class: "card-actions" },
        h("button", { class: "btn btn-primary", type: "button", onclick: () => decide("allow") }, "Allow"),
        h("button", { class: "btn btn-danger-quiet", type: "button", onclick: () => decide("deny") }, "Deny"),
      ),
    ].filter(Boolean),
  );
  return card;
}

/** "Claude asks to use Edit src/a.ts": the card's text without the files and input its detail shows. */
function permissionTitle(c) {
  const tool = (c.details?.[0] ?? "").replace(/^Tool: /, "");
  const who = c.text.split(" asks to use ")[0];
  return tool && who !== c.text ? `${who} asks to use ${tool}` : c.text.split(" (asked because")[0];
}

/** Lines of a card's detail shown before "Show all" (contract §10.3). */
export const FOLD_LINES = 12;

/** The detail's lines, a diff's added, removed and hunk lines marked (after its `---` line). */
function detailLines(pre, lines) {
  let inDiff = false;
  pre.replaceChildren(
    ...lines.flatMap((l, i) => {
      if (l.startsWith("--- ")) inDiff = true;
      else if (!l) inDiff = false;
      const cls =
        !inDiff || l.startsWith("--- ") || l.startsWith("+++ ")
          ? null
          : l[0] === "+"
            ? "dl-add"
            : l[0] === "-"
              ? "dl-del"
              : l.startsWith("@@")
                ? "dl-hunk"
                : null;
      return [cls ? h("span", { class: cls }, l) : l, i < lines.length - 1 ? "\n" : ""];
    }),
  );
}

/** What the card approves, whole: the text to be sent, the changes, the command and diff;
 * folded past 12 lines. */
function detailBlock(text) {
  const lines = text.split("\n");
  const folded = lines.length > FOLD_LINES;
  const pre = h("pre", { class: "card-detail-text", "aria-label": "What it approves" });
  detailLines(pre, folded ? lines.slice(0, FOLD_LINES) : lines);
  if (!folded) return pre;
  const more = h(
    "button",
    { class: "btn btn-link card-detail-more", type: "button", "aria-expanded": "false" },
    `Show all ${lines.length} lines`,
  );
  more.addEventListener("click", () => {
    const open = more.getAttribute("aria-expanded") !== "true";
    detailLines(pre, open ? lines : lines.slice(0, FOLD_LINES));
    more.setAttribute("aria-expanded", String(open));
    more.textContent = open ? "Show less" : `Show all ${lines.length} lines`;
  });
  return h("div", { class: "card-detail-block" }, pre, more);
}

/** A turn held by a budget (contract §10.4): raise the limit (an amount), allow this turn once, or stop it. */
export function budgetCard(c, ctx, extra = null) {
  const card = h("section", {
    class: "card card-budget",
    role: "group",
    "aria-label": `Budget reached: ${c.budget ?? ""}`,
  });
  const act = (body) =>
    busy(card, () =>
      ctx
        .call("POST", `/api/cards/${encodeURIComponent(c.id)}`, body)
        .then(() => ctx.changed({ cards: true, sessionId: c.session })),
    );
  const usd = h("input", {
    class: "input",
    type: "number",
    min: "0",
    step: "0.01",
    "aria-label": "New limit in USD",
    placeholder: "New limit, USD",
  });
  const tokens = h("input", {
    class: "input",
    type: "number",
    min: "0",
    step: "1",
    "aria-label": "New limit in tokens",
    placeholder: "or tokens",
  });
  const raise = h(
    "form",
    {
      class: "card-answer",
      onsubmit: (e) => {
        e.preventDefault();
        const body = { optionId: "raise" };
        if (usd.value.trim()) body.limitUsd = Number(usd.value);
        if (tokens.value.trim()) body.limitTokens = Number(tokens.value);
        act(body);
      },
    },
    usd,
    tokens,
    h("button", { class: "btn", type: "submit" }, "Raise limit"),
  );
  card.append(
    h("div", { class: "card-kicker" }, icon("triangle-alert"), "Budget reached: this turn waits", extra),
    h("h3", { class: "card-title" }, c.text),
    raise,
    h(
      "div",
      { class: "card-actions" },
      h(
        "button",
        { class: "btn btn-primary", type: "button", onclick: () => act({ optionId: "allow_once" }) },
        "Allow once",
      ),
      h("button", { class: "btn btn-danger-quiet", type: "button", onclick: () => act({ optionId: "stop" }) }, "Stop"),
    ),
  );
  return card;
}

const OUTCOME = { allowed: ["✓", "Allowed"], denied: ["✗", "Denied"], expired: ["○", "Expired"] };
const BECAUSE = {
  timeout: "nobody decided in time",
  turn_ended: "the turn ended",
  cancelled: "the call was cancelled",
  relay_restarted: "the relay restarted",
  released: "the budget no longer holds it",
};

/** A decided card, as one compact line in the conversation's history. */
export function cardOutcome(c) {
  const [icon, word] = OUTCOME[c.status] ?? ["•", c.status];
  const what = c.kind === "permission" && c.detail ? permissionTitle(c) : c.text.split("?")[0].replace(/^Allow /, "");
  const why = c.expiredBecause ? ` (${BECAUSE[c.expiredBecause] ?? c.expiredBecause})` : "";
  return h(
    "div",
    {
      class: `msg msg-compact card-outcome outcome-${c.status}`,
      role: "note",
      "aria-label": `Approval ${word.toLowerCase()}`,
    },
    h(
      "div",
      { class: "compact-line" },
      h("span", { class: "compact-icon", "aria-hidden": "true" }, icon),
      h("span", { class: "compact-text" }, `${word}${why}: ${what}`),
      h("time", { class: "msg-time" }, fmtTime(c.decidedAt ?? c.createdAt)),
    ),
  );
}

export function questionCard(q, ctx, extra = null) {
  const card = h("section", { class: "card card-question", role: "group", "aria-label": `Question: ${q.question}` });
  const answer = (body) =>
    busy(card, () =>
      ctx
        .call("POST", `/api/questions/${encodeURIComponent(q.id)}`, body)
        .then(() => ctx.changed({ cards: true, sessionId: q.session })),
    );
  const input = h("textarea", {
    class: "input",
    rows: 1,
    placeholder: "Or write an answer…",
    "aria-label": "Your answer",
  });
  const form = h(
    "form",
    {
      class: "card-answer",
      onsubmit: (e) => {
        e.preventDefault();
        if (input.value.trim()) answer({ answer: input.value.trim() });
      },
    },
    input,
    h("button", { class: "btn", type: "submit" }, "Send answer"),
  );
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey) {
      e.preventDefault();
      form.requestSubmit();
    }
  });
  card.append(
    ...[
      h(
        "div",
        { class: "card-kicker" },
        icon("circle-help"),
        q.kind === "ask" ? "Question (the agent keeps working)" : "The agent waits for your answer",
        extra,
      ),
      h("h3", { class: "card-title" }, q.question),
      q.detail ? h("p", { class: "card-detail" }, q.detail) : null,
      q.options?.length
        ? h(
            "div",
            { class: "card-options", role: "group", "aria-label": "Options" },
            q.options.map((o) =>
              h(
                "button",
                {
                  class: `btn ${o === q.recommendation ? "btn-primary" : "btn-option"}`,
                  type: "button",
                  title: o === q.recommendation ? "Recommended" : null,
                  onclick: () => answer({ choice: o }),
                },
                o,
                o === q.recommendation ? h("span", { "aria-hidden": "true" }, " ★") : null,
              ),
            ),
          )
        : null,
      form,
      h(
        "div",
        { class: "card-actions card-actions-end" },
        h("button", { class: "btn btn-link", type: "button", onclick: () => answer({ dismiss: true }) }, "Dismiss"),
      ),
    ].filter(Boolean),
  );
  return card;
}
