"use strict";
// The outpost-server admin console: a page over the admin API (api/admin/v1, X-Admin-Key). Everything it shows is
// put in text nodes, never parsed as HTML. The key stays in the tab's sessionStorage. Paths are relative, so the
// console also works behind a reverse proxy under a sub-path.
//
// This file is the core: sign-in, the page's frame, the Overview, Users, Data and Logs tabs, and the helpers the
// other views use. The page loads those views after it (console-charts.js, console-functions.js, console-audit.js);
// each registers itself with `registerTab` or `addOverviewSection` before the page starts.
const OutpostConsole = (() => {
  const api = "api/admin/v1";
  const keyName = "outpostAdminKey";
  const tabs = ["overview", "users", "data", "logs"];
  const titles = { overview: "Overview", users: "Users", data: "Data", logs: "Logs" };
  // Registered views: name → { render(generation), reset() }; and loaders of extra Overview sections.
  const views = {};
  const overviewSections = [];
  let env = null;
  // `generation` counts what the page was asked to show: an answer that arrives after the next request began is
  // dropped, so a slow answer cannot overwrite the tab the user went to meanwhile.
  const state = { key: null, tab: "overview", logTimer: null, collection: null, generation: 0 };

  class APIError extends Error {
    constructor(status, message) {
      super(message);
      this.status = status;
    }
  }

  function el(tag, attributes, ...children) {
    const node = env.document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) {
      if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
      else if (name === "value") node.value = value;
      else node.setAttribute(name, value);
    }
    for (const child of children) {
      if (child === null || child === undefined) continue;
      node.append(typeof child === "string" ? env.document.createTextNode(child) : child);
    }
    return node;
  }

  // Replaces a node's children, leaving out nulls (replaceChildren would show them as the text "null").
  function fill(node, ...children) {
    node.replaceChildren(...children.filter((child) => child !== null && child !== undefined));
  }

  function byId(id) {
    return env.document.getElementById(id);
  }

  function stored(action) {
    try {
      return action(env.storage);
    } catch (error) {
      return null;  // storage disabled: the key is then kept for this page only
    }
  }

  // The answer of a failed request: its JSON error (`error`, `error_code`), or the HTTP status.
  async function failure(response) {
    let body = {};
    try {
      body = await response.json();
    } catch (error) {
      body = {};
    }
    return new APIError(response.status, (body && body.error) || "HTTP " + response.status);
  }

  // `body`, when given, is sent as JSON.
  async function request(path, method, body) {
    const headers = { "X-Admin-Key": state.key };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const response = await env.fetch(env.origin + api + path, {
      method: method || "GET",
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (response.status === 204) return null;
    if (!response.ok) throw await failure(response);
    try {
      return await response.json();
    } catch (error) {
      return {};
    }
  }

  // A file the API answers (an export): its bytes as a Blob and the file name its Content-Disposition gives.
  async function requestFile(path, fallbackName) {
    const response = await env.fetch(env.origin + api + path, { headers: { "X-Admin-Key": state.key } });
    if (!response.ok) throw await failure(response);
    const disposition = response.headers.get("Content-Disposition") || "";
    return { blob: await response.blob(), name: fileName(disposition) || fallbackName };
  }

  // `attachment; filename="audit.csv"` or `filename*=UTF-8''audit%20x.csv`; only the last path component is kept.
  function fileName(disposition) {
    let name = null;
    const extended = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(disposition);
    const plain = /filename\s*=\s*("([^"]*)"|[^;]+)/.exec(disposition);
    if (extended) {
      try {
        name = decodeURIComponent(extended[1].trim());
      } catch (error) {
        name = null;
      }
    }
    if (!name && plain) name = (plain[2] !== undefined ? plain[2] : plain[1]).trim();
    if (!name) return null;
    name = name.split(/[\\/]/).pop().trim();
    return name && name !== "." && name !== ".." ? name : null;
  }

  function showStatus(text, isError) {
    const status = byId("status");
    if (!status) return;
    status.setAttribute("class", isError ? "status error" : "status");
    status.replaceChildren(text || "");
  }

  function table(headers, rows) {
    return el("table", {},
      headers ? el("thead", {}, el("tr", {}, ...headers.map((h) => el("th", {}, h)))) : null,
      el("tbody", {}, ...rows.map((cells) => el("tr", {}, ...cells.map((c) => el("td", {}, c))))));
  }

  function json(value) {
    return JSON.stringify(value, null, 2);
  }

  function prevent(event) {
    if (event && event.preventDefault) event.preventDefault();
  }

  // A new request of the page: later answers of older ones are dropped (see `generation`).
  function begin() {
    return ++state.generation;
  }

  function isCurrent(generation) {
    return generation === state.generation;
  }

  // A failed request of the current view: a refused key goes back to the sign-in; anything else is shown.
  function fail(error, generation) {
    if (generation !== undefined && generation !== state.generation) return;
    if (error && error.status === 403) return signOut("The server refused the admin key. Sign in again.");
    showStatus(error && error.message ? error.message : String(error), true);
  }

  // Sign-in: the key is checked against the API before it is kept.
  function renderSignIn(message) {
    stopLogTimer();
    const input = el("input", { id: "admin-key", type: "password", placeholder: "admin key", autocomplete: "off" });
    const form = el("form", { id: "sign-in", onsubmit: (event) => { prevent(event); return signIn(input.value); } },
      el("h1", {}, "outpost-server"),
      el("p", {}, "The admin key is printed in the server's start banner and kept in its data directory (admin-key)."),
      input, el("button", { type: "submit" }, "Sign in"), el("p", { id: "status", class: "status" }));
    env.document.body.replaceChildren(form);
    if (message) showStatus(message, true);
  }

  async function signIn(key) {
    const generation = ++state.generation;
    state.key = (key || "").trim();
    if (!state.key) return renderSignIn("Enter the admin key.");
    try {
      const app = await request("/app");
      if (generation !== state.generation) return;
      stored((storage) => storage.setItem(keyName, state.key));
      renderShell(app);
      await showTab("overview");
    } catch (error) {
      if (generation !== state.generation) return;
      state.key = null;
      renderSignIn(error.status === 403 ? "The server refused this admin key." : "Cannot reach the admin API: " + error.message);
    }
  }

  function signOut(message) {
    state.generation += 1;
    stored((storage) => storage.removeItem(keyName));
    state.key = null;
    state.collection = null;
    for (const view of Object.values(views)) if (view.reset) view.reset({ signedOut: true });
    renderSignIn(typeof message === "string" ? message : undefined);
  }

  function renderShell(app) {
    const nav = el("nav", {}, ...tabs.map((tab) =>
      el("button", { id: "tab-" + tab, onclick: () => openTab(tab) }, titles[tab])),
      el("button", { id: "sign-out", onclick: () => signOut() }, "Sign out"));
    env.document.body.replaceChildren(
      el("header", {}, el("h1", {}, "outpost-server"), el("span", { id: "app-id" }, "app " + app.app_id), nav),
      el("p", { id: "status", class: "status" }),
      el("main", { id: "view" }));
  }

  // A tab chosen in the navigation starts at its beginning (the collection list, the audit search…).
  function openTab(tab) {
    state.collection = null;
    if (views[tab] && views[tab].reset) views[tab].reset();
    return showTab(tab);
  }

  async function showTab(tab) {
    stopLogTimer();
    const generation = ++state.generation;
    state.tab = tab;
    for (const other of tabs) {
      const button = byId("tab-" + other);
      if (button) button.setAttribute("class", other === tab ? "active" : "");
    }
    showStatus("Loading…");
    try {
      if (tab === "overview") await renderOverview(generation);
      else if (tab === "users") await renderUsers(generation);
      else if (tab === "data") await (state.collection ? renderDocuments(state.collection, generation) : renderCollections(generation));
      else if (tab === "logs") await renderLogs(generation);
      else if (views[tab]) await views[tab].render(generation);
      if (generation === state.generation) showStatus("");
    } catch (error) {
      if (generation !== state.generation) return;
      if (error.status === 403) return signOut("The server refused the admin key. Sign in again.");
      showStatus(error.message, true);
    } finally {
      // Auto-refresh goes on after a failed refresh too.
      const auto = byId("log-auto");
      if (generation === state.generation && tab === "logs" && auto && auto.checked) {
        state.logTimer = env.setTimeout(() => showTab("logs"), 5000);
      }
    }
  }

  async function renderOverview(generation) {
    const [app, sessions, ...sections] = await Promise.all(
      [request("/app"), request("/sessions"), ...overviewSections.map((load) => load())]);
    if (generation !== state.generation) return;
    const rows = [
      ["App id", app.app_id],
      ["Name", app.name],
      ["Sync", app.sync.mode + (app.sync.partition_key ? " (partition key " + app.sync.partition_key + ")" : "")],
      ["Development mode", app.sync.development_mode ? "on" : "off"],
      ["Auth providers", app.auth_providers.join(", ") || "none"],
      ["Schema collections", app.schema.join(", ") || "none"],
      ["Data API", app.data_api ? "enabled" : "disabled"],
      ["Live sync connections", String(sessions.activeConnections)],
    ];
    const users = sessions.users || [];
    const parts = [el("h2", {}, "Overview"), table(null, rows)];
    if (users.length) {
      parts.push(el("h3", {}, "Connected users"),
        table(["User", "Connections"], users.map((u) => [u.user_id, String(u.connections)])));
    }
    for (const section of sections) parts.push(...(section || []));
    byId("view").replaceChildren(...parts);
  }

  async function renderUsers(generation) {
    const { users } = await request("/users");
    if (generation !== state.generation) return;
    const rows = users.map((user) => [
      user.id, user.provider, user.identity, user.created_at,
      user.disabled ? "disabled" : user.confirmed ? "active" : "unconfirmed",
      el("span", { class: "actions" },
        el("button", { "data-toggle": user.id, onclick: () => setDisabled(user.id, !user.disabled) },
          user.disabled ? "Enable" : "Disable"),
        el("button", { class: "danger", "data-user": user.id, onclick: () => deleteUser(user.id) }, "Delete")),
    ]);
    byId("view").replaceChildren(
      el("h2", {}, "Users (" + users.length + ")"),
      users.length ? table(["Id", "Provider", "Identity", "Created", "State", ""], rows) : el("p", {}, "No users yet."));
  }

  function deleteUser(id) {
    if (!env.confirm("Delete user " + id + "? Their sessions and API keys go too.")) return;
    return changeUser("/users/" + encodeURIComponent(id), "DELETE", "Deleted user " + id + ".");
  }

  // Disabling stops the user's tokens and closes their sync connections until they are enabled again.
  function setDisabled(id, disabled) {
    if (disabled && !env.confirm("Disable user " + id + "? They are signed out everywhere until enabled.")) return;
    return changeUser("/users/" + encodeURIComponent(id) + (disabled ? "/disable" : "/enable"), "PUT",
      (disabled ? "Disabled" : "Enabled") + " user " + id + ".");
  }

  async function changeUser(path, method, done) {
    const generation = ++state.generation;
    try {
      await request(path, method);
      await renderUsers(generation);
      if (generation === state.generation) showStatus(done);
    } catch (error) {
      fail(error, generation);
    }
  }

  async function renderCollections(generation) {
    state.collection = null;
    const { collections } = await request("/collections");
    if (generation !== state.generation) return;
    const rows = collections.map((c) => [
      el("button", { class: "link", "data-collection": c.name, onclick: () => openCollection(c.name) }, c.name),
      String(c.count),
    ]);
    byId("view").replaceChildren(
      el("h2", {}, "Collections"),
      collections.length ? table(["Collection", "Documents"], rows) : el("p", {}, "No documents yet."));
  }

  async function openCollection(name) {
    state.collection = name;
    return showTab("data");
  }

  async function renderDocuments(name, generation) {
    const { documents, total } = await request("/collections/" + encodeURIComponent(name) + "/documents?limit=100");
    if (generation !== state.generation) return;
    byId("view").replaceChildren(
      el("button", { id: "back", onclick: () => { state.collection = null; return showTab("data"); } }, "← Collections"),
      el("h2", {}, name + " (" + (total > documents.length ? "first " + documents.length + " of " : "") + total + ")"),
      ...documents.map((document) => el("pre", { class: "document" }, json(document))));
  }

  // The controls are made once per visit of the tab; a refresh replaces the records only, so typing in the filter
  // is not disturbed.
  async function renderLogs(generation) {
    if (!byId("log-controls")) {
      const options = ["100", "500", "1000"].map((n) => el("option", { value: n }, n));
      const controls = el("form", { id: "log-controls", class: "controls", onsubmit: (event) => { prevent(event); return showTab("logs"); } },
        el("input", { id: "log-kind", placeholder: "kind (auth, sync, compensating_write, admin…)", value: "" }),
        el("select", { id: "log-limit", onchange: () => showTab("logs") }, ...options),
        el("button", { id: "log-refresh", type: "submit" }, "Refresh"),
        el("label", {}, el("input", { id: "log-auto", type: "checkbox", onchange: () => showTab("logs") }), " refresh every 5 s"));
      byId("view").replaceChildren(el("h2", {}, "Logs"), controls, el("div", { id: "log-records" }));
    }
    const kind = byId("log-kind").value.trim();
    const limit = byId("log-limit").value || "100";
    const query = "?limit=" + encodeURIComponent(limit) + (kind ? "&kind=" + encodeURIComponent(kind) : "");
    const { logs } = await request("/logs" + query);
    if (generation !== state.generation) return;
    const rows = logs.slice().reverse().map((record) => [
      record.time, record.level, record.kind, record.message,
      record.details === undefined ? "" : el("code", {}, JSON.stringify(record.details)),
    ]);
    byId("log-records").replaceChildren(
      logs.length ? table(["Time", "Level", "Kind", "Message", "Details"], rows) : el("p", {}, "No log records match."));
  }

  function stopLogTimer() {
    if (state.logTimer !== null) env.clearTimeout(state.logTimer);
    state.logTimer = null;
  }

  // A view's tab, after the core's four: `view.render(generation)` fills #view (dropping its answers when
  // `isCurrent(generation)` is false); `view.reset(options)`, if any, makes the tab start at its beginning again
  // when it is chosen in the navigation, and forgets what was typed when `options.signedOut`.
  function registerTab(name, title, view) {
    if (!tabs.includes(name)) tabs.push(name);
    titles[name] = title;
    views[name] = view;
  }

  // `load()` answers the nodes to append to the Overview (an empty array for none); it runs beside the Overview's
  // own requests.
  function addOverviewSection(load) {
    overviewSections.push(load);
  }

  // `environment`: document, fetch, storage (sessionStorage), confirm, setTimeout, clearTimeout, origin (what the
  // relative paths are joined to: "" in a browser), and in a browser URL (for saving exports).
  async function start(environment) {
    env = environment;
    const saved = stored((storage) => storage.getItem(keyName));
    if (saved) return signIn(saved);
    renderSignIn();
  }

  return {
    start, signIn, signOut, showTab, openTab, openCollection, deleteUser, setDisabled, state,
    registerTab, addOverviewSection, request, requestFile, fileName, begin, isCurrent, fail,
    ui: { el, byId, fill, table, json, prevent, showStatus },
    environment: () => env,
  };
})();

if (typeof module !== "undefined" && module.exports) {
  module.exports = OutpostConsole;
} else {
  window.addEventListener("DOMContentLoaded", () => OutpostConsole.start({
    document, fetch: window.fetch.bind(window), storage: window.sessionStorage, confirm: window.confirm.bind(window),
    setTimeout: window.setTimeout.bind(window), clearTimeout: window.clearTimeout.bind(window), origin: "",
    URL: window.URL,
  }));
}