// New session: provider and model from the relay's provider table (embedded in the page),
// the relay mode, an optional first message. A provider that is not set up is refused by
// the relay, and its reason is shown here.
import { h } from "./dom.js";

const LAST = "oar.lastProvider";

export class NewSessionView {
  constructor(ctx) {
    this.ctx = ctx;
    const providers = Object.values(ctx.catalog);
    const last = localStorage.getItem(LAST);
    const start = providers.find((p) => p.id === last) ?? providers.find((p) => p.id === "scripted") ?? providers[0];
    const provider = h(
      "select",
      { class: "input", id: "new-provider" },
      providers.map((p) => h("option", { value: p.id, selected: p.id === start?.id }, p.name)),
    );
    const models = h("datalist", { id: "new-models" });
    const model = h("input", { class: "input", id: "new-model", list: "new-models", autocomplete: "off" });
    const effort = h("select", { class: "input", id: "new-effort" });
    const mode = h(
      "select",
      { class: "input", id: "new-mode" },
      ["agent", "ask", "plan"].map((m) => h("option", { value: m }, m)),
    );
    const title = h("input", { class: "input", id: "new-title", maxlength: 200, placeholder: "optional" });
    const cwd = h("input", { class: "input", id: "new-cwd", placeholder: "the relay's default folder" });
    // Claude Cloud works on a clone of a repository instead of a folder (contract §9.2).
    const repo = h("input", {
      class: "input",
      id: "new-repo",
      placeholder: "git URL, path on the relay, or owner/name",
    });
    const branch = h("input", {
      class: "input",
      id: "new-branch",
      placeholder: "made from the default branch when missing",
    });
    const text = h("textarea", {
      class: "input",
      id: "new-text",
      rows: 4,
      placeholder: "optional: starts the first turn",
    });
    const may = h("input", { type: "checkbox", role: "switch", id: "new-may" });
    // contract §10.1: with the worktrees setting "all" a new session gets a worktree; untick to keep it in the folder.
    const ownTree = h("input", { type: "checkbox", role: "switch", id: "new-worktree", checked: true });
    const error = h("p", { class: "form-error", role: "alert" });
    const create = h("button", { class: "btn btn-primary", type: "submit" }, "Create session");

    const fillModels = () => {
      const p = ctx.catalog[provider.value];
      models.replaceChildren(...(p?.models ?? []).map((m) => h("option", { value: m })));
      model.placeholder = p ? `default: ${p.defaultModel}` : "";
      model.value = "";
      effort.replaceChildren(
        h("option", { value: "" }, "default"),
        ...(p?.efforts ?? []).map((e) => h("option", { value: e }, e)),
      );
    };
    const why = h("p", { class: "field-help", id: "new-provider-why", role: "status" });
    provider.setAttribute("aria-describedby", "new-provider-why");
    const avail = new Map();
    const explain = () => {
      const a = avail.get(provider.value);
      why.textContent = a && !a.available ? `Not available: ${a.reason ?? "not set up"}` : "";
    };
    const cloudFields = () => {
      const cloud = provider.value === "claude-cloud";
      cwdField.hidden = cloud;
      repoField.hidden = !cloud;
      // Local providers take a branch too: the session then works in a git worktree on it.
      branchField.hidden = provider.value === "openai-image";
      branch.placeholder = cloud
        ? "made from the default branch when missing"
        : "optional: a git worktree on this branch";
    };
    provider.addEventListener("change", () => {
      fillModels();
      explain();
      cloudFields();
    });
    fillModels();
    // Which providers are set up on this relay: each option says so in words.
    ctx
      .call("GET", "/api/providers", undefined, { quiet: true })
      .then(
        (r) => r.providers,
        () =>
          ctx.call("GET", "/api/usage", undefined, { quiet: true }).then(
            (u) => u.providers.map((p) => ({ id: p.id, available: p.status !== "not_set_up", reason: p.note })),
            () => [],
          ),
      )
      .then((list) => {
        for (const p of list) avail.set(p.id, p);
        // Custom agents (setting customAgents) are not in the page's table: they come from here.
        for (const p of list.filter((x) => !ctx.catalog[x.id] && x.defaultModel)) {
          ctx.catalog[p.id] = {
            id: p.id,
            name: p.name,
            defaultModel: p.defaultModel,
            models: p.models ?? [],
            efforts: p.efforts ?? [],
          };
          provider.append(h("option", { value: p.id }, p.name));
        }
        for (const o of provider.options) {
          const a = avail.get(o.value);
          if (a) o.textContent = `${ctx.catalog[o.value]?.name ?? o.value}${a.available ? "" : " — not available"}`;
        }
        explain();
      });

    const field = (label, input, id) =>
      h("div", { class: "field" }, h("label", { class: "field-label", for: id }, label), input);
    const cwdField = field("Folder", cwd, "new-cwd");
    const repoField = field("Repository", repo, "new-repo");
    const branchField = field("Branch", branch, "new-branch");
    const treeField = h(
      "label",
      { class: "switch", for: "new-worktree", hidden: true },
      ownTree,
      h("span", { class: "switch-track", "aria-hidden": "true" }),
      "Its own git worktree (when the folder is in a repository)",
    );
    ctx.call("GET", "/api/settings", undefined, { quiet: true }).then(
      (st) => (treeField.hidden = st.worktrees !== "all"),
      () => {},
    );
    cloudFields();
    this.form = h(
      "form",
      {
        class: "new-form",
        "aria-labelledby": "new-title-h",
        onsubmit: async (e) => {
          e.preventDefault();
          error.textContent = "";
          create.disabled = true;
          const body = { provider: provider.value, mode: mode.value };
          if (model.value.trim()) body.model = model.value.trim();
          if (effort.value) body.effort = effort.value;
          if (title.value.trim()) body.title = title.value.trim();
          if (provider.value === "claude-cloud") {
            if (repo.value.trim()) body.repo = repo.value.trim();
            if (branch.value.trim()) body.branch = branch.value.trim();
          } else {
            if (cwd.value.trim()) body.cwd = cwd.value.trim();
            if (branch.value.trim()) body.branch = branch.value.trim();
            else if (!treeField.hidden && !ownTree.checked) body.worktree = false;
          }
          if (text.value.trim()) body.text = text.value;
          if (may.checked) body.mayCreateSessions = true;
          try {
            const s = await ctx.call("POST", "/api/sessions", body, { quiet: true });
            localStorage.setItem(LAST, provider.value);
            ctx.changed({ list: true });
            ctx.go(`session=${encodeURIComponent(s.id)}`);
          } catch (err) {
            error.textContent = err.message;
          } finally {
            create.disabled = false;
          }
        },
      },
      h(
        "div",
        { class: "field-grid" },
        h(
          "div",
          { class: "field" },
          h("label", { class: "field-label", for: "new-provider" }, "Provider"),
          provider,
          why,
        ),
        field("Model", h("span", { class: "field-input" }, model, models), "new-model"),
        field("Effort", effort, "new-effort"),
        field("Relay mode", mode, "new-mode"),
      ),
      field("Title", title, "new-title"),
      cwdField,
      repoField,
      branchField,
      h("div", { class: "field" }, treeField),
      field("First message", text, "new-text"),
      h(
        "div",
        { class: "field" },
        h(
          "label",
          { class: "switch", for: "new-may" },
          may,
          h("span", { class: "switch-track", "aria-hidden": "true" }),
          "Agents in this conversation may start sessions",
        ),
      ),
      error,
      h("div", { class: "form-actions" }, create),
    );
    this.el = h(
      "section",
      { class: "panel new-session" },
      h("h2", { id: "new-title-h", class: "panel-title" }, "New session"),
      this.form,
    );
    this.first = title;
  }

  focus() {
    this.first.focus();
  }
}
