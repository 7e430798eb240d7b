/// A Node.js program that runs the admin console's script against a real server, with a small document in place of
/// a browser's: it signs in (with a wrong key first), visits each tab, deletes a user, opens a collection, filters
/// the logs and signs out, and prints what the page showed at each step as one JSON object.
///
/// `node harness.js <console.js> <origin> <admin key> <user id to delete> <collection> <log kind>`
enum AdminConsoleHarness {
    static let script = #"""
"use strict";
const [scriptPath, origin, adminKey, userToDelete, collection, logKind] = process.argv.slice(2);

class Text {
  constructor(text) { this.text = String(text); }
  get textContent() { return this.text; }
  findAll(match, found) { return found; }
}

class Element {
  constructor(tag) {
    this.tagName = tag.toUpperCase();
    this.children = [];
    this.attributes = {};
    this.listeners = {};
    this.value = "";
    this.checked = false;
  }
  append(...nodes) {
    // As in a browser, anything that is not a node becomes text (a stray null shows as "null").
    for (const node of nodes) this.children.push(node instanceof Element || node instanceof Text ? node : new Text(node));
  }
  replaceChildren(...nodes) { this.children = []; this.append(...nodes); }
  setAttribute(name, value) { this.attributes[name] = String(value); }
  getAttribute(name) { return name in this.attributes ? this.attributes[name] : null; }
  addEventListener(type, listener) { (this.listeners[type] = this.listeners[type] || []).push(listener); }
  get textContent() {
    // Cells and blocks are separated so that the transcript can be read.
    return this.children.map((child) => child.textContent).join(this.children.length > 1 ? " | " : "");
  }
  findAll(match, found) {
    if (match(this)) found.push(this);
    for (const child of this.children) child.findAll(match, found);
    return found;
  }
}

const body = new Element("body");
const document = {
  body,
  createElement: (tag) => new Element(tag),
  createTextNode: (text) => new Text(text),
  getElementById: (id) => body.findAll((node) => node.attributes.id === id, [])[0] || null,
};
const storage = new Map();
const timers = [];
const cleared = new Set();
// Answers for paths in `slow` arrive 300 ms late.
const slow = new Set();
const environment = {
  document, origin, confirm: () => true,
  fetch: async (url, options) => {
    if ([...slow].some((path) => url.includes(path))) await new Promise((resolve) => setTimeout(resolve, 300));
    return fetch(url, options);
  },
  storage: { getItem: (k) => storage.get(k) || null, setItem: (k, v) => storage.set(k, v), removeItem: (k) => storage.delete(k) },
  setTimeout: (callback) => { timers.push(callback); return timers.length; },
  clearTimeout: (id) => { cleared.add(id); },
};

function find(attribute, value) {
  const node = body.findAll((n) => n.attributes[attribute] === value, [])[0];
  if (!node) throw new Error(`nothing with ${attribute}=${value} on the page: ${body.textContent}`);
  return node;
}
async function fire(node, type) {
  for (const listener of node.listeners[type] || []) await listener({ preventDefault() {} });
}
const text = (id) => (document.getElementById(id) || { textContent: "" }).textContent;

(async () => {
  const transcript = {};
  const Console = require(scriptPath);
  await Console.start(environment);
  transcript.signIn = body.textContent;
  find("id", "admin-key").value = adminKey + "-wrong";
  await fire(find("id", "sign-in"), "submit");
  transcript.wrongKey = text("status");
  find("id", "admin-key").value = adminKey;
  await fire(find("id", "sign-in"), "submit");
  transcript.storedKey = storage.get("outpostAdminKey") || null;
  transcript.header = text("app-id");
  transcript.overview = text("view");
  await fire(find("id", "tab-users"), "click");
  transcript.users = text("view");
  await fire(find("data-toggle", userToDelete), "click");
  transcript.disabled = text("view");
  transcript.disableStatus = text("status");
  await fire(find("data-toggle", userToDelete), "click");
  transcript.enabled = text("view");
  await fire(find("data-user", userToDelete), "click");
  transcript.afterDelete = text("view");
  transcript.deleteStatus = text("status");
  await fire(find("id", "tab-data"), "click");
  transcript.collections = text("view");
  await fire(find("data-collection", collection), "click");
  transcript.documents = text("view");
  transcript.documentBlocks = body.findAll((n) => n.tagName === "PRE", []).length;
  await fire(find("id", "back"), "click");
  transcript.back = text("view");
  await fire(find("id", "tab-logs"), "click");
  transcript.logs = text("view");
  find("id", "log-kind").value = logKind;
  await fire(find("id", "log-controls"), "submit");
  transcript.filteredLogs = text("view");
  find("id", "log-auto").checked = true;
  await fire(find("id", "log-auto"), "change");
  transcript.timersArmed = timers.length;
  await timers[0]();
  transcript.kindAfterAutoRefresh = find("id", "log-kind").value;
  // A refresh still under way when the user goes to another tab.
  const pending = fire(find("id", "log-controls"), "submit");
  await fire(find("id", "tab-users"), "click");
  await pending;
  transcript.timerCleared = cleared.has(timers.length);
  transcript.timerAfterLeaving = Console.state.logTimer;
  // A slow answer for the tab the user left arrives after the next tab's.
  slow.add("/users");
  const slowUsers = fire(find("id", "tab-users"), "click");
  await fire(find("id", "tab-overview"), "click");
  await slowUsers;
  slow.clear();
  transcript.race = text("view");
  await fire(find("id", "sign-out"), "click");
  transcript.afterSignOut = body.textContent;
  transcript.storedKeyAfterSignOut = storage.get("outpostAdminKey") || null;
  // A new page with the key still in the tab's storage goes straight to the overview.
  storage.set("outpostAdminKey", adminKey);
  await Console.start(environment);
  transcript.reopened = text("view");
  process.stdout.write(JSON.stringify(transcript));
})().catch((error) => {
  process.stderr.write(String(error && error.stack || error));
  process.exit(1);
});
"""#
}
