"use strict";
// The Functions tab: the app's functions (GET api/admin/v1/functions) with the runtime's status; a function's source
// and flags, and a form that runs it (POST api/admin/v1/functions/<name>/run) as a user or as the system, showing
// the result, the error, the log lines and the time taken.
((Console) => {
  const { el, byId, table, json, prevent, showStatus } = Console.ui;
  // `selected`: the function shown; `inputs`: what was typed per function (kept while the tab is revisited).
  const local = { selected: null, inputs: {}, functions: [], runtime: null };

  function yesNo(value) {
    return value ? "yes" : "no";
  }

  function runtimeLine(runtime) {
    if (!runtime) {
      return el("p", { id: "fn-runtime", class: "runtime", "data-available": "unknown" }, "Runtime status unknown.");
    }
    if (!runtime.available) {
      const why = runtime.reason || runtime.error;
      return el("p", { id: "fn-runtime", class: "runtime unavailable", "data-available": "false" },
        "Functions cannot run: the JavaScript runtime is not available" + (why ? " (" + why + ")" : "")
        + ". The server log says why.");
    }
    const workers = typeof runtime.workers === "number"
      ? ", " + runtime.workers + (runtime.workers === 1 ? " worker" : " workers") : "";
    return el("p", { id: "fn-runtime", class: "runtime available", "data-available": "true" },
      "Runtime available: Node.js " + (runtime.node || "(version unknown)") + workers + ".");
  }

  async function render(generation) {
    const answer = await Console.request("/functions");
    if (!Console.isCurrent(generation)) return;
    local.functions = Array.isArray(answer.functions) ? answer.functions : [];
    local.runtime = answer.runtime || null;
    if (local.selected && !local.functions.some((f) => f.name === local.selected)) local.selected = null;
    const rows = local.functions.map((f) => [
      el("button", { class: "link", "data-function": f.name, onclick: () => select(f.name) }, f.name),
      [f.private ? "private" : "public", f.run_as_system ? "runs as system" : null].filter(Boolean).join(", "),
    ]);
    byId("view").replaceChildren(
      el("h2", {}, "Functions (" + local.functions.length + ")"),
      runtimeLine(local.runtime),
      local.functions.length ? table(["Function", "Flags"], rows) : el("p", {}, "The app defines no functions."),
      el("div", { id: "fn-detail" }));
    if (local.selected) renderDetail(local.selected);
  }

  function select(name) {
    local.selected = name;
    renderDetail(name);
  }

  function renderDetail(name) {
    const f = local.functions.find((candidate) => candidate.name === name);
    const detail = byId("fn-detail");
    if (!f || !detail) return;
    for (const button of [...Console.environment().document.querySelectorAll("[data-function]")]) {
      button.setAttribute("class", button.getAttribute("data-function") === name ? "link selected" : "link");
    }
    const inputs = local.inputs[name] || { user: "", args: "[]" };
    const canRun = !local.runtime || local.runtime.available !== false;
    const user = el("input", {
      id: "fn-user", placeholder: "user id (empty: run as system)", value: inputs.user, autocomplete: "off",
    });
    const args = el("textarea", { id: "fn-arguments", rows: "4", spellcheck: "false", value: inputs.args });
    const runButton = el("button", { id: "fn-run", type: "submit" }, "Run");
    if (!canRun) runButton.setAttribute("disabled", "disabled");
    const submit = (event) => { prevent(event); return run(name, user.value, args.value); };
    const form = el("form", { id: "fn-run-form", class: "run-form", onsubmit: submit },
      el("label", {}, "Run as ", user),
      el("label", { class: "block" },
        "Arguments: a JSON array of Extended JSON values, e.g. [{\"$numberInt\": \"1\"}, \"text\"]", args),
      el("div", { class: "controls" }, runButton,
        canRun ? null : el("span", { class: "status error" }, "The runtime is not available.")));
    detail.replaceChildren(
      el("h3", { id: "fn-name" }, name),
      table(null, [
        ["Private", yesNo(f.private) + (f.private ? " (callable from other functions and this console only)" : "")],
        ["Runs as system", yesNo(f.run_as_system) + (f.run_as_system ? " (no rules apply)" : "")],
        ["Can evaluate", f.can_evaluate === null || f.can_evaluate === undefined
          ? "any authenticated user" : el("code", {}, JSON.stringify(f.can_evaluate))],
      ]),
      el("h4", {}, "Source"),
      el("pre", { class: "source", id: "fn-source" }, el("code", {}, typeof f.source === "string" ? f.source : "")),
      el("h4", {}, "Run"),
      form,
      el("div", { id: "fn-output" }));
  }

  // The arguments as an array, or a message saying what is wrong with them.
  function parseArguments(text) {
    const trimmed = text.trim();
    if (!trimmed) return { value: [] };
    let value;
    try {
      value = JSON.parse(trimmed);
    } catch (error) {
      return { error: "The arguments are not valid JSON: " + error.message + ". Write a JSON array, e.g. [1, \"two\"]." };
    }
    if (!Array.isArray(value)) {
      return { error: "The arguments must be a JSON array (one element per argument), e.g. [1, \"two\"]." };
    }
    return { value };
  }

  async function run(name, userText, argumentText) {
    local.inputs[name] = { user: userText, args: argumentText };
    const output = byId("fn-output");
    const parsed = parseArguments(argumentText);
    if (parsed.error) {
      output.replaceChildren(el("p", { class: "status error", id: "fn-invalid" }, parsed.error));
      return;
    }
    const userId = userText.trim() || null;
    const generation = Console.begin();
    output.replaceChildren(el("p", { class: "status", id: "fn-running" },
      "Running " + name + (userId ? " as user " + userId : " as system") + "…"));
    showStatus("");
    // The answer goes where the run was asked for: not when another run began, nor into another function's pane.
    const stillShown = () => Console.isCurrent(generation) && byId("fn-output") === output;
    try {
      const answer = await Console.request("/functions/" + encodeURIComponent(name) + "/run", "POST",
        { user_id: userId, arguments: parsed.value });
      if (stillShown()) output.replaceChildren(...outcome(answer));
    } catch (error) {
      if (!Console.isCurrent(generation)) return;
      if (error.status === 403) return Console.fail(error, generation);
      if (stillShown()) {
        output.replaceChildren(el("p", { class: "status error", id: "fn-error" }, "The run was refused: " + error.message));
      }
    }
  }

  function outcome(answer) {
    const parts = [];
    const logs = Array.isArray(answer.logs) ? answer.logs : [];
    if (answer.error) {
      parts.push(el("h4", {}, "Error"),
        el("p", { class: "status error", id: "fn-error" },
          (answer.error.error_code || "Error") + ": " + (answer.error.error || "the function failed")));
    } else {
      parts.push(el("h4", {}, "Result"),
        el("pre", { class: "document", id: "fn-result" }, answer.result === undefined ? "null" : json(answer.result)));
    }
    parts.push(el("h4", {}, "Logs"),
      logs.length
        ? el("div", { id: "fn-logs" },
          table(["Level", "Message"], logs.map((line) => [String(line.level), String(line.message)])))
        : el("p", { id: "fn-logs" }, "No log lines."));
    if (typeof answer.duration_ms === "number") {
      parts.push(el("p", { id: "fn-duration" }, "Ran in " + answer.duration_ms + " ms."));
    }
    return parts;
  }

  Console.registerTab("functions", "Functions", {
    render,
    reset: (options) => {
      local.selected = null;
      if (options && options.signedOut) local.inputs = {};
    },
  });
})(typeof OutpostConsole !== "undefined" ? OutpostConsole : require("./console.js"));