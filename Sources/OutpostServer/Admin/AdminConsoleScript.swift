/// The admin console's script (`GET /admin/console.js`): renders the admin API's answers into the page, as text
/// only. It runs in a browser, and under Node.js in the tests (`AdminConsoleTests`), which give it a small document.
enum AdminConsoleScript {
    static let text = #"""
"use strict";
// The outpost-server admin console: a page over the admin API (/api/admin/v1, X-Admin-Key). Everything it shows
// is put in text nodes, never parsed as HTML. The key stays in the tab's sessionStorage.
const OutpostConsole = (() => {
  const api = "/api/admin/v1";
  const keyName = "outpostAdminKey";
  const tabs = ["overview", "users", "data", "logs"];
  const titles = { overview: "Overview", users: "Users", data: "Data", logs: "Logs" };
  let env = null;
  const state = { key: null, tab: "overview", logTimer: null, collection: null };

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

  function byId(id) {
    return env.document.getElementById(id);
  }

  async function request(path, method) {
    const response = await env.fetch(env.origin + api + path, {
      method: method || "GET",
      headers: { "X-Admin-Key": state.key },
    });
    if (response.status === 204) return null;
    let body = {};
    try {
      body = await response.json();
    } catch (error) {
      body = {};
    }
    if (!response.ok) throw new APIError(response.status, body.error || "HTTP " + response.status);
    return body;
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

  // Sign-in: the key is checked against the API before it is kept.
  function renderSignIn(message) {
    stopLogTimer();
    const input = el("input", { id: "admin-key", type: "password", placeholder: "admin key", autocomplete: "off" });
    const form = el("form", {
      id: "sign-in",
      onsubmit: (event) => {
        if (event && event.preventDefault) event.preventDefault();
        return signIn(input.value);
      },
    }, el("h1", {}, "outpost-server"), el("p", {}, "The admin key is printed in the server's start banner and kept in its data directory (admin-key)."),
    input, el("button", { type: "submit" }, "Sign in"), el("p", { id: "status", class: "status" }));
    env.document.body.replaceChildren(form);
    if (message) showStatus(message, true);
  }

  async function signIn(key) {
    state.key = (key || "").trim();
    if (!state.key) return renderSignIn("Enter the admin key.");
    try {
      const app = await request("/app");
      env.storage.setItem(keyName, state.key);
      renderShell(app);
      await showTab("overview");
    } catch (error) {
      state.key = null;
      renderSignIn(error.status === 403 ? "The server refused this admin key." : "Cannot reach the admin API: " + error.message);
    }
  }

  function signOut() {
    env.storage.removeItem(keyName);
    state.key = null;
    renderSignIn();
  }

  function renderShell(app) {
    const nav = el("nav", {}, ...tabs.map((tab) =>
      el("button", { id: "tab-" + tab, onclick: () => showTab(tab) }, titles[tab])),
      el("button", { id: "sign-out", onclick: signOut }, "Sign out"));
    env.document.body.replaceChildren(
      el("header", {}, el("h1", {}, "outpost-server"), el("span", { id: "app-id" }, "app " + app.app_id), nav),
      el("p", { id: "status", class: "status" }),
      el("main", { id: "view" }));
  }

  async function showTab(tab) {
    stopLogTimer();
    state.tab = tab;
    for (const other of tabs) {
      const button = byId("tab-" + other);
      if (button) button.setAttribute("class", other === tab ? "active" : "");
    }
    showStatus("Loading…");
    try {
      if (tab === "overview") await renderOverview();
      else if (tab === "users") await renderUsers();
      else if (tab === "data") await (state.collection ? renderDocuments(state.collection) : renderCollections());
      else if (tab === "logs") await renderLogs();
      showStatus("");
    } catch (error) {
      if (error.status === 403) return signOut();
      showStatus(error.message, true);
    }
  }

  async function renderOverview() {
    const [app, sessions] = await Promise.all([request("/app"), request("/sessions")]);
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
    byId("view").replaceChildren(el("h2", {}, "Overview"), table(null, rows));
  }

  async function renderUsers() {
    const { users } = await request("/users");
    const rows = users.map((user) => [
      user.id, user.provider, user.identity, user.created_at,
      user.disabled ? "disabled" : user.confirmed ? "active" : "unconfirmed",
      el("button", { class: "danger", "data-user": user.id, onclick: () => deleteUser(user.id) }, "Delete"),
    ]);
    byId("view").replaceChildren(
      el("h2", {}, "Users (" + users.length + ")"),
      users.length ? table(["Id", "Provider", "Identity", "Created", "State", ""], rows) : el("p", {}, "No users yet."));
  }

  async function deleteUser(id) {
    if (!env.confirm("Delete user " + id + "? Their sessions and API keys go too.")) return;
    try {
      await request("/users/" + encodeURIComponent(id), "DELETE");
      await renderUsers();
      showStatus("Deleted user " + id + ".");
    } catch (error) {
      showStatus(error.message, true);
    }
  }

  async function renderCollections() {
    state.collection = null;
    const { collections } = await request("/collections");
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
    try {
      await renderDocuments(name);
      showStatus("");
    } catch (error) {
      showStatus(error.message, true);
    }
  }

  async function renderDocuments(name) {
    const { documents, total } = await request("/collections/" + encodeURIComponent(name) + "/documents?limit=100");
    byId("view").replaceChildren(
      el("button", { id: "back", onclick: () => { state.collection = null; return showTab("data"); } }, "← Collections"),
      el("h2", {}, name + " (" + (total > documents.length ? "first " + documents.length + " of " : "") + total + ")"),
      ...documents.map((document) => el("pre", { class: "document" }, json(document))));
  }

  async function renderLogs() {
    const kind = byId("log-kind") ? byId("log-kind").value : "";
    const limit = byId("log-limit") ? byId("log-limit").value : "100";
    const auto = byId("log-auto") ? byId("log-auto").checked : false;
    const query = "?limit=" + encodeURIComponent(limit) + (kind ? "&kind=" + encodeURIComponent(kind) : "");
    const { logs } = await request("/logs" + query);
    const kindInput = el("input", { id: "log-kind", placeholder: "kind (auth, sync, compensating_write, admin…)", value: kind });
    const limitSelect = el("select", { id: "log-limit" }, ...["100", "500", "1000"].map((n) => el("option", { value: n }, n)));
    limitSelect.value = limit;
    const autoBox = el("input", { id: "log-auto", type: "checkbox", onchange: () => showTab("logs") });
    autoBox.checked = auto;
    const rows = logs.slice().reverse().map((record) => [
      record.time, record.level, record.kind, record.message,
      record.details === undefined ? "" : el("code", {}, JSON.stringify(record.details)),
    ]);
    byId("view").replaceChildren(
      el("h2", {}, "Logs"),
      el("div", { class: "controls" }, kindInput, limitSelect,
        el("button", { id: "log-refresh", onclick: () => showTab("logs") }, "Refresh"),
        el("label", {}, autoBox, " refresh every 5 s")),
      logs.length ? table(["Time", "Level", "Kind", "Message", "Details"], rows) : el("p", {}, "No log records match."));
    if (auto) state.logTimer = env.setTimeout(() => showTab("logs"), 5000);
  }

  function stopLogTimer() {
    if (state.logTimer !== null) env.clearTimeout(state.logTimer);
    state.logTimer = null;
  }

  // `environment`: document, fetch, storage (sessionStorage), confirm, setTimeout, clearTimeout, origin.
  async function start(environment) {
    env = environment;
    const saved = env.storage.getItem(keyName);
    if (saved) return signIn(saved);
    renderSignIn();
  }

  return { start, signIn, signOut, showTab, openCollection, deleteUser, state };
})();

if (typeof module !== "undefined" && module.exports) {
  module.exports = OutpostConsole;
} else {
  window.addEventListener("DOMContentLoaded", () => OutpostConsole.start({
    document, fetch: window.fetch.bind(window), storage: window.sessionStorage, confirm: window.confirm.bind(window),
    setTimeout: window.setTimeout.bind(window), clearTimeout: window.clearTimeout.bind(window), origin: "",
  }));
}
"""#
}
