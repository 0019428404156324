// Settings → Providers → Custom agents (contract §10.2): any ACP agent by its command. The
// list is the setting customAgents; environment values are secrets, shown as **** and sent
// back as **** to keep them. A deliberately small form: add one, remove one.
import { h } from "./dom.js";

/** "KEY=value" lines → { KEY: "value" }; args: one a line. */
const parseEnv = (text) =>
  Object.fromEntries(
    text
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean)
      .map((l) => [
        l.slice(0, l.indexOf("=") < 0 ? l.length : l.indexOf("=")),
        l.includes("=") ? l.slice(l.indexOf("=") + 1) : "",
      ]),
  );
const parseArgs = (text) =>
  text
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);

export function customAgentsForm(ctx, settings, saved) {
  const list = settings.customAgents ?? [];
  const error = h("p", { class: "form-error", role: "alert" });
  const save = async (next) => {
    error.textContent = "";
    try {
      await saved(await ctx.call("PATCH", "/api/settings", { customAgents: next }, { quiet: true }));
    } catch (e) {
      error.textContent = e?.message ?? String(e);
    }
  };
  const input = (id, label, attrs = {}) => {
    const el = h(attrs.rows ? "textarea" : "input", { class: "input", id, autocomplete: "off", ...attrs });
    return [el, h("div", { class: "field" }, h("label", { class: "field-label", for: id }, label), el)];
  };
  const [id, idField] = input("custom-id", "Id", { placeholder: "goose", maxlength: 31 });
  const [name, nameField] = input("custom-name", "Name", { placeholder: "Goose", maxlength: 80 });
  const [command, commandField] = input("custom-command", "Command", { placeholder: "goose" });
  const [args, argsField] = input("custom-args", "Arguments (one a line)", { rows: 2, placeholder: "acp" });
  const [env, envField] = input("custom-env", "Environment (KEY=value a line; values are kept secret)", { rows: 2 });
  const rows = list.map((a) =>
    h(
      "li",
      { class: "custom-agent" },
      h("strong", {}, a.name),
      ` (${a.id}): `,
      h("code", {}, [a.command, ...a.args].join(" ")),
      Object.keys(a.env).length ? h("span", { class: "field-help" }, ` env ${Object.keys(a.env).join(", ")}`) : null,
      h(
        "button",
        {
          class: "btn btn-small btn-danger-quiet",
          type: "button",
          "aria-label": `Remove ${a.name}`,
          onclick: () => save(list.filter((x) => x.id !== a.id)),
        },
        "Remove",
      ),
    ),
  );
  return h(
    "section",
    { class: "custom-agents", "aria-labelledby": "custom-agents-title" },
    h("h4", { id: "custom-agents-title" }, "Custom agents"),
    h(
      "p",
      { class: "field-help" },
      "Any agent that speaks ACP (goose, Cursor's agent, Kimi, your own): it becomes a provider.",
    ),
    rows.length ? h("ul", {}, rows) : null,
    h(
      "form",
      {
        class: "custom-agent-form",
        onsubmit: (e) => {
          e.preventDefault();
          save([
            ...list,
            {
              id: id.value.trim(),
              name: name.value.trim(),
              command: command.value.trim(),
              args: parseArgs(args.value),
              env: parseEnv(env.value),
            },
          ]);
        },
      },
      idField,
      nameField,
      commandField,
      argsField,
      envField,
      h("button", { class: "btn btn-small", type: "submit" }, "Add agent"),
    ),
    error,
  );
}
