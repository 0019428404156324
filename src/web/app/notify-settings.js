// Settings → Notifications: the `notify` setting (contract §10.3) — Web Push, finished turns,
// the webhook (address and signing secret), ntfy (its topic's address, a secret), the page's
// address for links, and quiet hours. Each part saves on its own through PATCH /api/settings
// `{ notify: { … } }`; a refusal shows the relay's reason beside it and the stored value
// comes back. Secrets are never shown: the field says whether one is set.
import { h, icon } from "./dom.js";

const LABELS = {
  webPush: "Web Push",
  turnsDone: "Finished turns",
  webhookUrl: "Webhook address",
  webhookSecret: "Webhook secret",
  ntfyUrl: "ntfy topic address",
  publicUrl: "Page address",
  quietHours: "Quiet hours",
};

const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";

export class NotifySection {
  constructor(ctx) {
    this.ctx = ctx;
    this.notify = null;
    this.said = new Map();
    this.body = h("div", { class: "notify-fields" });
    this.el = h(
      "section",
      { class: "notify-settings", id: "notify-section", "aria-labelledby": "notify-title" },
      h("h3", { id: "notify-title", class: "panel-sub", tabindex: -1 }, "Notifications"),
      h(
        "p",
        { class: "field-help" },
        "When a card, a question or an error in your turn needs you. The first goes out at once; what follows within 30 s goes out as one (“3 sessions need you”); inside quiet hours everything waits for their end.",
      ),
      this.body,
    );
  }

  /** `n`: the `notify` setting as GET /api/settings shows it (secrets as ****). */
  update(n, force = false) {
    if (!n) {
      this.el.hidden = true;
      return;
    }
    this.el.hidden = false;
    // A field being typed in is not redrawn under the owner's hands.
    if (!force && this.body.contains(document.activeElement) && this.notify) return;
    this.notify = n;
    this.draw();
  }

  draw() {
    const n = this.notify;
    this.body.replaceChildren(
      this.toggle("webPush", "Push to the browsers where you chose Notify me"),
      this.toggle("turnsDone", "Also when a turn you started finishes"),
      this.text("webhookUrl", "https://hooks.example.com/oar", "Signed JSON is posted here (X-OAR-Signature)."),
      this.secret("webhookSecret", "The key of X-OAR-Signature (HMAC-SHA256). Without one the webhook goes unsigned."),
      this.secret(
        "ntfyUrl",
        "An ntfy topic, e.g. https://ntfy.sh/your-topic. Whoever knows it reads the topic, so it is kept secret.",
        "https://ntfy.sh/your-topic",
      ),
      this.text(
        "publicUrl",
        "https://desk.tailnet.ts.net/",
        "Where links in webhook and ntfy notifications point: the address you open this page at, e.g. through a proxy or tailscale serve. Empty: the relay's own address.",
        h(
          "button",
          { class: "btn btn-small", type: "button", onclick: () => this.save("publicUrl", `${location.origin}/`) },
          "Use this page's address",
        ),
      ),
      this.quiet(n.quietHours),
    );
  }

  /** Beside each part: saved, or why not (kept across redraws until its next save). */
  saidFor(key) {
    const m = this.said.get(key);
    return h(
      "span",
      {
        class: `field-said${m ? (m.ok ? " ok" : " bad") : ""}`,
        id: `notify-${key}-said`,
        role: "status",
        "aria-live": "polite",
      },
      m ? [icon(m.ok ? "check" : "triangle-alert"), m.text] : null,
    );
  }

  toggle(key, label) {
    const id = `notify-${key}`;
    const input = h("input", {
      type: "checkbox",
      role: "switch",
      id,
      checked: !!this.notify[key],
      "aria-describedby": `${id}-said`,
    });
    input.addEventListener("change", () => this.save(key, input.checked));
    return h(
      "div",
      { class: "field" },
      h(
        "span",
        { class: "field-line" },
        h(
          "label",
          { class: "switch", for: id },
          input,
          h("span", { class: "switch-track", "aria-hidden": "true" }),
          `${LABELS[key]}: ${label}`,
        ),
        this.saidFor(key),
      ),
    );
  }

  text(key, placeholder, help, extra = null) {
    const id = `notify-${key}`;
    const input = h("input", {
      class: "input",
      id,
      type: "text",
      autocomplete: "off",
      spellcheck: "false",
      placeholder,
      value: this.notify[key] ?? "",
      "aria-describedby": `${id}-help ${id}-said`,
    });
    return this.form(key, input, help, () => input.value.trim(), extra);
  }

  secret(key, help, example = "") {
    const id = `notify-${key}`;
    const set = !!this.notify[key];
    const input = h("input", {
      class: "input",
      id,
      type: "password",
      autocomplete: "off",
      placeholder: set ? "**** (set)" : example || "not set",
      value: "",
      "aria-describedby": `${id}-help ${id}-said`,
    });
    const remove = set
      ? h(
          "button",
          { class: "btn btn-small btn-danger-quiet", type: "button", onclick: () => this.save(key, null) },
          "Remove",
        )
      : null;
    // An empty field keeps what is set (Remove takes it away).
    return this.form(key, input, help, () => input.value.trim() || undefined, remove);
  }

  form(key, input, help, value, extra) {
    const id = input.id;
    return h(
      "form",
      {
        class: "field",
        onsubmit: (e) => {
          e.preventDefault();
          const v = value();
          if (v !== undefined) this.save(key, v);
        },
      },
      h("label", { class: "field-label", for: id }, LABELS[key]),
      h(
        "span",
        { class: "field-line" },
        input,
        h("button", { class: "btn btn-small", type: "submit" }, "Save"),
        extra,
        this.saidFor(key),
      ),
      h("p", { class: "field-help", id: `${id}-help` }, help),
    );
  }

  quiet(q) {
    const from = h("input", { class: "input", type: "time", id: "notify-quiet-from", value: q?.from ?? "" });
    const to = h("input", { class: "input", type: "time", id: "notify-quiet-to", value: q?.to ?? "" });
    const tz = h("input", {
      class: "input",
      type: "text",
      id: "notify-quiet-tz",
      autocomplete: "off",
      spellcheck: "false",
      value: q?.tz ?? "",
      placeholder: browserZone(),
    });
    const value = () =>
      from.value || to.value ? { from: from.value, to: to.value, tz: tz.value.trim() || browserZone() } : null;
    return h(
      "form",
      {
        class: "field",
        role: "group",
        "aria-labelledby": "notify-quiet-label",
        onsubmit: (e) => {
          e.preventDefault();
          this.save("quietHours", value());
        },
      },
      h("span", { class: "field-label", id: "notify-quiet-label" }, LABELS.quietHours),
      h(
        "span",
        { class: "field-line" },
        h("label", { for: "notify-quiet-from" }, "From"),
        from,
        h("label", { for: "notify-quiet-to" }, "to"),
        to,
        h("label", { for: "notify-quiet-tz" }, "time zone"),
        tz,
        h("button", { class: "btn btn-small", type: "submit" }, "Save"),
        q
          ? h(
              "button",
              { class: "btn btn-small btn-danger-quiet", type: "button", onclick: () => this.save("quietHours", null) },
              "None",
            )
          : null,
        this.saidFor("quietHours"),
      ),
      h(
        "p",
        { class: "field-help" },
        "Nothing goes out between these times (an IANA time zone such as Europe/Berlin); what waited goes out as one when they end.",
      ),
    );
  }

  async save(key, value) {
    const node = this.body.querySelector(`#notify-${key}-said`);
    if (node) node.replaceChildren("Saving…");
    try {
      const s = await this.ctx.call("PATCH", "/api/settings", { notify: { [key]: value } }, { quiet: true });
      this.said.set(key, { ok: true, text: "Saved" });
      this.saved?.(s);
      this.update(s.notify, true);
    } catch (e) {
      // The relay's words, naming the field as the page does; the stored value is put back.
      const why = String(e.message).replace(`Setting notify.${key}`, LABELS[key]);
      this.said.set(key, { ok: false, text: `Not saved: ${why}` });
      this.draw();
    }
  }
}
