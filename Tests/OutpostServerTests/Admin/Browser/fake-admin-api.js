#!/usr/bin/env node
"use strict";
// A stand-in for outpost-server's admin console and admin API, for working on the console's views without building
// the server: it serves the console's files from Sources/OutpostServer/Admin/Console (read at each request, so an
// edit shows on reload) with the server's security headers, and answers the admin API from canned data — the
// existing routes (app, sessions, users, collections, documents, logs) and the ones the newer views use (stats,
// functions and their runs, audit events, export and verify).
//
//   node fake-admin-api.js [--port 0] [--prefix /some/sub/path/] [--broken-chain] [--no-runtime]
//
// It prints one JSON line — {"origin", "key", "scenario"} — where `scenario` is what console-browser.js expects of
// this data, then serves until it is stopped (SIGTERM or SIGINT).
const http = require("http");
const fs = require("fs");
const path = require("path");

const options = { port: 0, prefix: "/", brokenChain: false, runtime: true };
for (let i = 2; i < process.argv.length; i++) {
  const name = process.argv[i];
  if (name === "--port") options.port = Number(process.argv[++i]);
  else if (name === "--prefix") options.prefix = process.argv[++i];
  else if (name === "--broken-chain") options.brokenChain = true;
  else if (name === "--no-runtime") options.runtime = false;
  else {
    process.stderr.write("unknown argument " + name + "\n");
    process.exit(2);
  }
}
if (!options.prefix.startsWith("/")) options.prefix = "/" + options.prefix;
if (!options.prefix.endsWith("/")) options.prefix += "/";

const consoleFolder = path.resolve(__dirname, "../../../../Sources/OutpostServer/Admin/Console");
const key = "fake-admin-key-0123456789abcdef";
const appId = "fake-app";
const alice = "6b0bd73990a7e94c59f50001";
const bob = "6b0bd73990a7e94c59f50002";
const carol = "6b0bd73990a7e94c59f50003";
const itemP = "641382a1b2c3d4e5f6a7b8c9";
const itemQ = "641382a1b2c3d4e5f6a7b8ca";
const hourMs = 3600 * 1000;
const start = Date.parse("2026-11-28T08:00:00.000Z");

// The audit events, oldest first; `id`s are increasing ObjectId hex strings.
const events = [];
function addEvent(user, activity, type, data, objects, metadata) {
  const n = events.length + 1;
  events.push({
    id: "65a1f0c2e4b0a1b2c3" + n.toString(16).padStart(6, "0"),
    timestamp: new Date(start + n * 7 * 60 * 1000).toISOString(),
    activity, type, user, metadata: metadata || {}, data,
    objects: objects.map((pk) => ({ class: "Item", pk })),
  });
  return events[events.length - 1].id;
}
const itemOld = { _id: itemP, name: "first", owner_id: alice, price: 3, tags: ["a"] };
const ids = {};
ids.aliceReadP = addEvent(alice, "open item", "read", { type: "Item", value: [itemOld] }, [itemP], { device: "iPhone" });
ids.aliceWriteP = addEvent(alice, "edit price", "write",
  { Item: { modifications: [{ oldValue: itemOld, newValue: { price: 4, tags: ["a", "b"] } }] } }, [itemP], { device: "iPhone" });
ids.aliceReadQ = addEvent(alice, "list items", "read",
  { type: "Item", value: [{ _id: itemQ, name: "<b>second</b>", owner_id: bob, price: 10, tags: [] }] }, [itemQ]);
ids.bobReadP = addEvent(bob, "open item", "read", { type: "Item", value: [{ ...itemOld, price: 4, tags: ["a", "b"] }] }, [itemP]);
ids.bobWriteP = addEvent(bob, "rename", "write", {
  Item: {
    insertions: [{ _id: itemQ, name: "<b>second</b>", owner_id: bob, price: 10, tags: [] }],
    modifications: [{ oldValue: { ...itemOld, price: 4, tags: ["a", "b"] }, newValue: { name: "renamed" } }],
  },
}, [itemQ, itemP]);
ids.bobCustom = addEvent(bob, "checkout", "payment", { amount: 12, currency: "EUR" }, [], { device: "web" });
ids.aliceDeleteQ = addEvent(alice, "remove item", "write",
  { Item: { deletions: [{ _id: itemQ, name: "<b>second</b>", owner_id: bob, price: 10, tags: [] }] } }, [itemQ]);
const carolIds = [];
for (let i = 0; i < 52; i++) {
  carolIds.push(addEvent(carol, "sync check", "read", { type: "Item", value: [{ ...itemOld, name: "renamed", price: 4 }] }, [itemP]));
}
const aliceIds = [ids.aliceReadP, ids.aliceWriteP, ids.aliceReadQ, ids.aliceDeleteQ];
const itemPIds = [ids.aliceReadP, ids.aliceWriteP, ids.bobReadP, ids.bobWriteP, ...carolIds];

const users = [alice, bob, carol].map((id, i) => ({
  id, provider: "anon-user", identity: id, confirmed: true, disabled: false,
  created_at: new Date(start - (3 - i) * hourMs).toISOString(), data: {}, custom_data: {}, linked_to: null,
}));
const documents = {
  Item: [{ _id: { $oid: itemP }, name: "renamed", owner_id: alice, price: { $numberInt: "4" } }],
  Person: [{ _id: { $numberInt: "1" }, name: "Ada" }],
  AuditEvent: [],
};
const functions = [
  { name: "sum", private: false, run_as_system: false, can_evaluate: null, source: "exports = function(a, b) { return a + b; };" },
  {
    name: "fails", private: true, run_as_system: true, can_evaluate: { "%%user.id": { "%in": [alice] } },
    source: "exports = function() {\n  console.log(\"about to fail\");\n  throw new Error(\"no such order\");\n};",
  },
];

function numberOf(value) {
  if (typeof value === "number") return value;
  if (value && typeof value === "object") {
    for (const name of ["$numberInt", "$numberLong", "$numberDouble", "$numberDecimal"]) {
      if (typeof value[name] === "string") return Number(value[name]);
    }
  }
  return NaN;
}

function send(response, status, body, headers) {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  response.writeHead(status, { "Content-Type": "application/json", "Cache-Control": "no-store", ...(headers || {}) });
  response.end(text);
}

const consoleHeaders = {
  "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; "
    + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "Cache-Control": "no-store",
};

function serveConsole(name, response) {
  const types = { html: "text/html; charset=utf-8", js: "text/javascript; charset=utf-8", css: "text/css; charset=utf-8" };
  const extension = name.split(".").pop();
  if (!/^console[a-z-]*\.(html|js|css)$/.test(name)) return send(response, 404, { error: "not found" });
  const file = path.join(consoleFolder, name);
  if (!fs.existsSync(file)) return send(response, 404, { error: "not found" });
  response.writeHead(200, { "Content-Type": types[extension], ...consoleHeaders });
  response.end(fs.readFileSync(file));
}

function matches(event, query) {
  if (query.user && event.user !== query.user) return false;
  if (query.activity && event.activity !== query.activity) return false;
  if (query.type && event.type !== query.type) return false;
  if (query.since && event.timestamp < new Date(query.since).toISOString()) return false;
  if (query.until && event.timestamp > new Date(query.until).toISOString()) return false;
  if (query.class && !event.objects.some((o) => o.class === query.class && (!query.pk || o.pk === query.pk))) return false;
  return true;
}

function auditQuery(url) {
  const query = {};
  for (const name of ["user", "activity", "type", "since", "until", "class", "pk", "cursor", "limit", "format"]) {
    const value = url.searchParams.get(name);
    if (value !== null) query[name] = value;
  }
  for (const name of ["since", "until"]) {
    if (query[name] !== undefined && Number.isNaN(Date.parse(query[name]))) return { error: "'" + name + "' must be an ISO 8601 time" };
  }
  if (query.pk && !query.class) return { error: "'pk' needs 'class'" };
  return { query };
}

function csvField(value) {
  const text = value === null || value === undefined ? "" : typeof value === "string" ? value : JSON.stringify(value);
  return /[",\n\r]/.test(text) ? "\"" + text.replace(/"/g, "\"\"") + "\"" : text;
}

async function answerAPI(route, url, request, response) {
  const method = request.method;
  if (method === "GET" && route === "app") {
    return send(response, 200, {
      app_id: appId, name: "Fake app", sync: { mode: "flexible", development_mode: true },
      auth_providers: ["anon-user", "local-userpass"], schema: ["Item", "Person"], data_api: true,
    });
  }
  if (method === "GET" && route === "sessions") {
    return send(response, 200, { activeConnections: 2, syncEngine: true, users: [{ user_id: alice, connections: 2 }] });
  }
  if (method === "GET" && route === "users") return send(response, 200, { users });
  if (method === "GET" && route === "collections") {
    return send(response, 200, { collections: Object.entries(documents).map(([name, list]) => ({ name, count: list.length })) });
  }
  const documentsRoute = /^collections\/([^/]+)\/documents$/.exec(route);
  if (method === "GET" && documentsRoute) {
    const list = documents[decodeURIComponent(documentsRoute[1])] || [];
    return send(response, 200, { total: list.length, documents: list });
  }
  if (method === "GET" && route === "logs") {
    const logs = [
      { time: new Date(start).toISOString(), kind: "auth", level: "info", message: "user logged in", details: { provider: "anon-user" } },
      { time: new Date(start + hourMs).toISOString(), kind: "compensating_write", level: "warning", message: "write to Item rejected" },
    ];
    const kind = url.searchParams.get("kind");
    return send(response, 200, { logs: kind ? logs.filter((l) => l.kind === kind) : logs });
  }
  if (method === "GET" && route === "stats") {
    const now = Date.parse("2026-11-29T08:00:00.000Z");
    return send(response, 200, {
      users: users.length,
      collections: [{ name: "Item", documents: 1240 }, { name: "Person", documents: 312 }, { name: "AuditEvent", documents: events.length }],
      connections: 2, last_hour: { compensating_writes: 1, errors: 0 },
      events_per_hour: Array.from({ length: 24 }, (_, i) => ({
        hour: new Date(now - (23 - i) * hourMs).toISOString(), count: [0, 0, 3, 12, 40, 22, 5, 0][i % 8] * (1 + (i % 3)),
      })),
    });
  }
  if (method === "GET" && route === "functions") {
    return send(response, 200, {
      functions,
      runtime: options.runtime ? { available: true, node: "v20.20.2", workers: 2 } : { available: false, node: null, workers: 0 },
    });
  }
  const run = /^functions\/([^/]+)\/run$/.exec(route);
  if (method === "POST" && run) {
    const name = decodeURIComponent(run[1]);
    if (!functions.some((f) => f.name === name)) return send(response, 404, { error: "no function named " + name, error_code: "FunctionNotFound" });
    let body;
    try {
      body = JSON.parse(await readBody(request));
    } catch (error) {
      return send(response, 400, { error: "the body is not JSON", error_code: "InvalidParameter" });
    }
    if (!Array.isArray(body.arguments)) return send(response, 400, { error: "'arguments' must be an array", error_code: "InvalidParameter" });
    if (!options.runtime) return send(response, 503, { error: "the functions runtime is not available", error_code: "FunctionExecutionError" });
    const as = body.user_id ? "user " + body.user_id : "system";
    if (name === "fails") {
      return send(response, 200, {
        result: null, error: { error: "no such order", error_code: "FunctionExecutionError" },
        logs: [{ level: "log", message: "about to fail" }], duration_ms: 4,
      });
    }
    const total = body.arguments.map(numberOf).reduce((a, b) => a + b, 0);
    return send(response, 200, {
      result: Number.isInteger(total) ? { $numberInt: String(total) } : { $numberDouble: String(total) }, error: null,
      logs: [{ level: "log", message: "sum called by " + as + " with " + body.arguments.length + " arguments" }], duration_ms: 12,
    });
  }
  if (method === "GET" && (route === "audit/events" || route === "audit/export")) {
    const parsed = auditQuery(url);
    if (parsed.error) return send(response, 400, { error: parsed.error, error_code: "InvalidParameter" });
    const query = parsed.query;
    const found = events.filter((e) => matches(e, query)).reverse();  // newest first
    if (route === "audit/export") {
      if (query.format === "jsonl") {
        return send(response, 200, found.map((e) => JSON.stringify(e)).join("\n") + "\n",
          { "Content-Type": "application/x-ndjson", "Content-Disposition": "attachment; filename=\"audit-events.jsonl\"" });
      }
      if (query.format === "csv") {
        const rows = [["id", "timestamp", "user", "activity", "type", "objects", "data"]].concat(found.map((e) => [
          e.id, e.timestamp, e.user, e.activity, e.type, e.objects.map((o) => o.class + ":" + o.pk).join(" "), e.data,
        ]));
        return send(response, 200, rows.map((r) => r.map(csvField).join(",")).join("\r\n") + "\r\n",
          { "Content-Type": "text/csv; charset=utf-8", "Content-Disposition": "attachment; filename=\"audit-events.csv\"" });
      }
      return send(response, 400, { error: "'format' must be jsonl or csv", error_code: "InvalidParameter" });
    }
    const limit = Math.min(Number(query.limit || 50), 1000);
    const offset = query.cursor ? Number(Buffer.from(query.cursor, "base64url").toString()) : 0;
    const page = found.slice(offset, offset + limit);
    const next = offset + limit < found.length ? Buffer.from(String(offset + limit)).toString("base64url") : null;
    return send(response, 200, { events: page, total: found.length, next_cursor: next });
  }
  if (method === "GET" && route === "audit/verify") {
    await new Promise((resolve) => setTimeout(resolve, 1500));  // a slow check, as a real chain's can be
    if (options.brokenChain) {
      return send(response, 200, {
        ok: false, batches: 3, events: events.length,
        first_mismatch: { batch: 2, ingested_at: new Date(start + hourMs).toISOString(), reason: "the batch's hash does not match its events" },
      });
    }
    return send(response, 200, { ok: true, batches: 3, events: events.length });
  }
  return send(response, 404, { error: "no route " + method + " " + route, error_code: "NotFound" });
}

function readBody(request) {
  return new Promise((resolve, reject) => {
    let text = "";
    request.setEncoding("utf8");
    request.on("data", (chunk) => { text += chunk; });
    request.on("end", () => resolve(text));
    request.on("error", reject);
  });
}

const server = http.createServer((request, response) => {
  const url = new URL(request.url, "http://localhost");
  if (!url.pathname.startsWith(options.prefix)) return send(response, 404, { error: "outside " + options.prefix });
  const local = url.pathname.slice(options.prefix.length);
  if (local === "admin") return serveConsole("console.html", response);
  if (local === "admin/") {
    response.writeHead(301, { Location: "../admin", "Cache-Control": "no-store" });
    return response.end();
  }
  if (local.startsWith("admin/")) return serveConsole(local.slice("admin/".length), response);
  if (local.startsWith("api/admin/v1/")) {
    if (request.headers["x-admin-key"] !== key) {
      return send(response, 403, { error: "the 'X-Admin-Key' header does not hold the admin key", error_code: "Forbidden" });
    }
    return answerAPI(local.slice("api/admin/v1/".length), url, request, response).catch((error) => send(response, 500, { error: String(error) }));
  }
  return send(response, 404, { error: "not found" });
});

server.listen(options.port, "127.0.0.1", () => {
  const origin = "http://127.0.0.1:" + server.address().port + options.prefix;
  const scenario = {
    wrongKey: "nope", userId: alice, collection: "Item", stats: true,
    audit: {
      user: alice, class: "Item", pk: itemP, userEventIds: aliceIds, objectEventIds: itemPIds, showEventId: ids.aliceWriteP,
      exportFormat: "csv", chain: options.brokenChain ? "mismatch" : "ok",
    },
    function: { name: "sum", arguments: "[{\"$numberInt\":\"1\"},{\"$numberInt\":\"2\"}]", expectedResult: "3", runtime: options.runtime },
  };
  process.stdout.write(JSON.stringify({ origin, key, scenario }) + "\n");
});
for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, () => process.exit(0));
