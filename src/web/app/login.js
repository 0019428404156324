// Shown when this tab has no owner token (or the relay refused it): the owner opens the
// link the relay printed at start (`oar url` prints it again), or pastes the token from the
// data folder the relay names in the page (its path only, never the token).
import { h } from "./dom.js";

const dataDir = JSON.parse(document.getElementById("oar-data-dir")?.textContent || '"~/.oar"');

export function showLogin(why, onToken) {
  const app = document.getElementById("app");
  const box = document.getElementById("login");
  app.hidden = true;
  document.body.classList.add("signed-out");
  const input = h("input", {
    class: "input",
    type: "password",
    "aria-label": "Owner token",
    autocomplete: "off",
    required: true,
  });
  box.replaceChildren(
    h(
      "form",
      {
        class: "login-card",
        onsubmit: (e) => {
          e.preventDefault();
          if (input.value.trim()) onToken(input.value.trim());
        },
      },
      h("h1", { class: "login-title" }, "OAR"),
      why ? h("p", { class: "form-error", role: "alert" }, why) : null,
      h(
        "p",
        {},
        "Open the link the relay printed when it started (it carries the owner token). ",
        "On the relay's machine, ",
        h("code", {}, dataDir === "~/.oar" ? "oar url" : `oar url --data ${dataDir}`),
        " prints it again. ",
        "Or paste the token from ",
        h("code", {}, `${dataDir}/owner-token`),
        ":",
      ),
      input,
      h("button", { class: "btn btn-primary", type: "submit" }, "Open"),
    ),
  );
  box.hidden = false;
  input.focus();
}
