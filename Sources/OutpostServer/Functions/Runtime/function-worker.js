"use strict";
// Outpost's App Services function worker. The server starts it as `node --max-old-space-size=<MB>
// function-worker.js` and talks to it over newline-delimited JSON: host → worker on stdin (init, call,
// reply), worker → host on stdout (ready, log, service, done). Stdout carries protocol lines only; stderr
// is free text for diagnostics and crashes. Values cross the pipe as canonical Extended JSON v2.
//
// Isolation: running functions in a separate process keeps them away from the server process (its
// memory, its database handles, its event loop), and the refused modules below keep casual code from
// spawning processes or touching files. It is NOT a sandbox against the machine: function code can reach
// the `process` global (process.binding, process.mainModule…) like any Node program can. Apps whose
// functions are not trusted should run the server under OS-level confinement.

const path = require("node:path");
const readline = require("node:readline");
const util = require("node:util");
const vm = require("node:vm");
const nodeModule = require("node:module");
const { AsyncLocalStorage } = require("node:async_hooks");

// Private handles on the real output, taken before any function code can replace or wrap them.
const writeStdout = process.stdout.write.bind(process.stdout);
const writeStderr = process.stderr.write.bind(process.stderr);
const exitProcess = process.exit.bind(process);
const realFetch = globalThis.fetch;
const RealWebSocket = globalThis.WebSocket;

const { BSON, EJSON, toProtocol, fromProtocol } = require(path.join(__dirname, "bson.js"));
const { makeServiceClient } = require(path.join(__dirname, "services.js"));

/** Frames deeper than this in context.functions.execute are refused (runaway recursion). */
const MAX_DEPTH = 100;

function send(message) {
  writeStdout(`${JSON.stringify(message)}\n`);
}

function diagnose(text) {
  writeStderr(`function-worker: ${text}\n`);
}

/** What the last `init` said; functions are compiled lazily and cached by name until the next init. */
const app = {
  initialised: false,
  functions: Object.create(null),
  values: Object.create(null),
  info: {},
  environment: { tag: "" },
  dataSources: [],
  allowNetwork: false,
};
const compiled = new Map();

/** Calls still running, by call id. A call: {id, finished, user, request}. */
const calls = new Map();
/** Service requests waiting for the host's reply, by request number (unique in this worker). */
const pendingRequests = new Map();
let lastRequest = 0;

/**
 * The running frame — {call, name, depth, runAsSystem} — follows every async continuation, so console
 * output, service requests and stray exceptions are attributed to the right call even when several
 * calls are in flight.
 */
const frames = new AsyncLocalStorage();

// ---------------------------------------------------------------------------------------------
// Console and stray output: everything a function prints becomes a `log` line of its call.

function emitLog(level, message) {
  const frame = frames.getStore();
  if (frame && !frame.call.finished) send({ type: "log", call: frame.call.id, level, message });
  else writeStderr(`[${level}${frame ? ` after call ${frame.call.id} ended` : ""}] ${message}\n`);
}

const timers = new Map();
const counters = new Map();
const functionConsole = {
  log: (...args) => emitLog("log", util.format(...args)),
  info: (...args) => emitLog("info", util.format(...args)),
  warn: (...args) => emitLog("warn", util.format(...args)),
  error: (...args) => emitLog("error", util.format(...args)),
  debug: (...args) => emitLog("debug", util.format(...args)),
  trace: (...args) => {
    const trace = { name: "Trace", message: util.format(...args) };
    Error.captureStackTrace(trace, functionConsole.trace);
    emitLog("debug", trace.stack);
  },
  dir: (value, options) => emitLog("log", util.inspect(value, options)),
  table: (...args) => emitLog("log", util.format(...args)),
  assert: (condition, ...args) => {
    if (!condition) emitLog("error", args.length ? `Assertion failed: ${util.format(...args)}` : "Assertion failed");
  },
  time: (label = "default") => { timers.set(label, process.hrtime.bigint()); },
  timeEnd: (label = "default") => { functionConsole.timeLog(label); timers.delete(label); },
  timeLog: (label = "default", ...args) => {
    const start = timers.get(label);
    if (start === undefined) return emitLog("warn", `No such label '${label}' for console.timeLog()`);
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    emitLog("log", util.format(`${label}: ${ms.toFixed(3)}ms`, ...args));
  },
  count: (label = "default") => {
    const count = (counters.get(label) ?? 0) + 1;
    counters.set(label, count);
    emitLog("log", `${label}: ${count}`);
  },
  countReset: (label = "default") => { counters.delete(label); },
  group: (...args) => { if (args.length) emitLog("log", util.format(...args)); },
  groupEnd: () => {},
};
// The global console is rerouted too: functions may reach it through globalThis or a built-in module.
Object.assign(console, functionConsole);

/** Writes to process.stdout/stderr become log lines (stdout itself must stay protocol-only). */
function captureWrites(stream, level) {
  stream.write = function write(chunk, encoding, callback) {
    if (typeof encoding === "function") callback = encoding;
    const text = typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
    emitLog(level, text.endsWith("\n") ? text.slice(0, -1) : text);
    if (typeof callback === "function") process.nextTick(callback);
    return true;
  };
}
captureWrites(process.stdout, "log");
captureWrites(process.stderr, "error");

// The host goes away → nothing left to do (also keeps EPIPE from looping through the handlers below).
process.stdout.on("error", () => exitProcess(0));

process.exit = function exit(code) {
  if (frames.getStore()) throw new Error("process.exit is not available to functions");
  return exitProcess(code);
};

// ---------------------------------------------------------------------------------------------
// require, and the network switch.

/** Built-ins functions may not load, with the reason given in the error. */
const REFUSED = new Map([
  ...["child_process", "cluster", "worker_threads"].map((m) => [m, "functions may not start processes or threads"]),
  ...["fs", "wasi"].map((m) => [m, "functions have no file system access"]),
  ...["vm", "inspector", "repl", "v8", "process", "module", "trace_events"].map((m) => [m, "it reaches into the function runtime itself"]),
]);
const NETWORK_MODULES = new Set(["http", "https", "http2", "net", "tls", "dgram", "dns"]);

function networkOffError(what) {
  return new Error(`${what}: outbound network is off for this app (allow_network is false)`);
}

function functionRequire(name) {
  if (typeof name !== "string") throw new TypeError("require needs a module name");
  if (!nodeModule.isBuiltin(name)) throw new Error(`modules from npm are not available in Outpost's function runtime: '${name}'`);
  const top = name.replace(/^node:/, "").split("/")[0];
  if (REFUSED.has(top)) throw new Error(`require('${name}') is refused: ${REFUSED.get(top)}`);
  if (NETWORK_MODULES.has(top) && !app.allowNetwork) throw networkOffError(`require('${name}') is refused`);
  return require(name);
}

/** Without allow_network, fetch rejects and WebSocket throws; with it they are Node's own. */
function applyNetworkPolicy() {
  if (app.allowNetwork) {
    globalThis.fetch = realFetch;
    if (RealWebSocket) globalThis.WebSocket = RealWebSocket;
    return;
  }
  globalThis.fetch = function fetch() { return Promise.reject(networkOffError("fetch")); };
  if (RealWebSocket) {
    globalThis.WebSocket = class WebSocket {
      constructor() { throw networkOffError("WebSocket"); }
    };
  }
}

/** context.http: the App Services HTTP client, done with fetch and kept simple. */
function makeHttpClient() {
  const client = {};
  for (const verb of ["get", "post", "put", "delete", "patch", "head"]) {
    client[verb] = async (request = {}) => {
      if (!app.allowNetwork) throw networkOffError(`context.http.${verb}`);
      return performHttp(verb.toUpperCase(), typeof request === "string" ? { url: request } : request);
    };
  }
  return client;
}

async function performHttp(method, request) {
  const headers = {};
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    headers[name] = Array.isArray(value) ? value.join(", ") : String(value);
  }
  let body = request.body;
  if (request.encodeBodyAsJSON) {
    body = EJSON.stringify(body);
    if (!Object.keys(headers).some((h) => h.toLowerCase() === "content-type")) headers["Content-Type"] = "application/json";
  } else if (body instanceof BSON.Binary) {
    body = body.buffer;
  }
  const response = await realFetch(request.url, { method, headers, body: method === "GET" || method === "HEAD" ? undefined : body });
  const bytes = Buffer.from(await response.arrayBuffer());
  const responseHeaders = {};
  response.headers.forEach((value, name) => { responseHeaders[name] = [value]; });
  const responseBody = new BSON.Binary(bytes);
  responseBody.text = () => bytes.toString("utf8");
  return { status: { code: response.status }, statusCode: response.status, headers: responseHeaders, body: responseBody };
}

// ---------------------------------------------------------------------------------------------
// Loading and running functions.

const PARAMETERS = ["exports", "module", "context", "BSON", "EJSON", "console", "require", "utils", "Buffer"];
/** App Services' `utils.crypto` is not offered; the name exists so code can test for it. */
const utils = Object.freeze({});

function hasFunction(name) {
  return typeof name === "string" && Object.hasOwn(app.functions, name) && typeof app.functions[name]?.source === "string";
}

/**
 * A function's source compiled once into a wrapper that is run afresh per execution, so each execution
 * gets new module state (as in App Services) without compiling again. A compile error is cached too.
 */
function wrapperFor(name) {
  let entry = compiled.get(name);
  if (!entry) {
    const { source } = app.functions[name];
    const options = { filename: `functions/${name}.js` };
    try {
      entry = { wrapper: vm.compileFunction(`${source}\n;return exports;`, PARAMETERS, options) };
    } catch (error) {
      // Report the error as the source alone has it, not as seen through the line appended above.
      try {
        vm.compileFunction(source, PARAMETERS, options);
        entry = { error };
      } catch (sourceError) {
        entry = { error: sourceError };
      }
    }
    compiled.set(name, entry);
  }
  if (entry.error) throw entry.error;
  return entry.wrapper;
}

function namedError(name, message) {
  const error = new Error(message);
  error.name = name;
  return error;
}

/** Evaluates the source with fresh `exports`/`module` and returns what it exported. */
function loadFunction(name, context) {
  const module = { exports: {} };
  const initial = module.exports;
  const returned = wrapperFor(name).call(undefined, initial, module, context, BSON, EJSON, functionConsole,
    functionRequire, utils, Buffer);
  const exported = returned !== initial ? returned : module.exports;
  if (typeof exported !== "function") throw namedError("FunctionInvalid", `function '${name}' does not export a function`);
  return exported;
}

/** Runs one function in a new frame; the frame runs as system if its function is configured so or its caller did. */
async function runFrame(call, name, args, callerRunsAsSystem, depth) {
  const frame = { call, name, depth, runAsSystem: Boolean(callerRunsAsSystem || app.functions[name].run_as_system) };
  return frames.run(frame, async () => {
    const implementation = loadFunction(name, makeContext(frame));
    return await implementation.apply(undefined, args);
  });
}

function executeNested(frame, name, args) {
  if (frame.call.finished) return Promise.reject(new Error(`context.functions.execute: call ${frame.call.id} has already ended`));
  if (!hasFunction(name)) return Promise.reject(new Error(`function not found: '${name}'`));
  if (frame.depth >= MAX_DEPTH) {
    return Promise.reject(new Error(`context.functions.execute('${name}'): more than ${MAX_DEPTH} nested function calls`));
  }
  return runFrame(frame.call, name, args, frame.runAsSystem, frame.depth + 1);
}

/** The `context` global of one frame; built per frame so that runningAsSystem and service requests follow it. */
function makeContext(frame) {
  const { call } = frame;
  const user = fromProtocol(call.user, "user");
  return {
    app: structuredClone(app.info),
    environment: { tag: "", ...fromProtocol(app.environment, "environment") },
    user,
    request: structuredClone(call.request),
    values: {
      get: (name) => (Object.hasOwn(app.values, name) ? fromProtocol(app.values[name], `values.${name}`) : undefined),
    },
    functions: { execute: (name, ...args) => executeNested(frame, name, args) },
    services: {
      get: (name) => {
        if (!app.dataSources.includes(name)) {
          const known = app.dataSources.join(", ") || "(none)";
          throw new Error(`service "${name}" is not configured; Outpost has the data sources: ${known}`);
        }
        return makeServiceClient(name, (request) => serviceRequest(frame, request));
      },
    },
    http: makeHttpClient(),
    runningAsSystem: () => frame.runAsSystem,
  };
}

/** Sends one `service` line for the frame and resolves with the host's decoded result. */
function serviceRequest(frame, { service, database, collection, action, body }) {
  return new Promise((resolve, reject) => {
    const { call } = frame;
    if (call.finished) throw new Error(`${action}: call ${call.id} has already ended`);
    const encoded = toProtocol(body, action);
    const request = ++lastRequest;
    pendingRequests.set(request, { resolve, reject, call });
    send({
      type: "service", call: call.id, request, service, database, collection, action, body: encoded,
      run_as_system: frame.runAsSystem,
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Ending calls.

/** A stack without the worker's own frames and Node's internals: what is left is the function's code. */
function functionStack(stack) {
  return String(stack ?? "").split("\n")
    .filter((line) => !/^\s+at /.test(line) || !(line.includes(__dirname) || /[( ]node:/.test(line)))
    .join("\n");
}

function describeError(error) {
  try {
    if (error !== null && typeof error === "object" && typeof error.message === "string") {
      const described = { name: String(error.name ?? "Error"), message: error.message, stack: functionStack(error.stack) };
      if (typeof error.code === "string" || typeof error.code === "number") described.code = String(error.code);
      return described;
    }
    return { name: "Error", message: typeof error === "string" ? error : util.inspect(error), stack: "" };
  } catch (failure) {
    return { name: "Error", message: `an error that could not be described (${failure})`, stack: "" };
  }
}

function finishCall(call, outcome) {
  if (call.finished) return;
  call.finished = true;
  calls.delete(call.id);
  for (const [request, pending] of pendingRequests) {
    if (pending.call === call) pendingRequests.delete(request);
  }
  send({ type: "done", id: call.id, ...outcome });
}

function succeed(call, result) {
  let encoded;
  try {
    encoded = toProtocol(result, "result");
  } catch (error) {
    return finishCall(call, { error: { name: "ResultNotSerializable", message: error.message, stack: functionStack(error.stack) } });
  }
  finishCall(call, { result: encoded });
}

/** Exceptions nobody caught: they end the call they came from, if it is still running. */
function strayFailure(kind) {
  return (error) => {
    const frame = frames.getStore();
    if (frame && !frame.call.finished) finishCall(frame.call, { error: describeError(error) });
    else diagnose(`${kind}${frame ? ` from call ${frame.call.id}, which had ended` : ""}: ${util.inspect(error)}`);
  };
}
process.on("uncaughtException", strayFailure("uncaught exception"));
process.on("unhandledRejection", strayFailure("unhandled rejection"));

// ---------------------------------------------------------------------------------------------
// The protocol.

function initialise(message) {
  app.functions = Object.assign(Object.create(null), message.functions ?? {});
  app.values = Object.assign(Object.create(null), message.values ?? {});
  app.info = message.app ?? {};
  app.environment = message.environment ?? { tag: "" };
  app.dataSources = Array.isArray(message.data_sources) ? message.data_sources.map(String) : [];
  app.allowNetwork = message.allow_network === true;
  compiled.clear();
  applyNetworkPolicy();
  app.initialised = true;
  send({ type: "ready", node: process.version });
}

function startCall(message) {
  const { id, name } = message;
  if (!Number.isInteger(id)) return diagnose(`ignored a call without an integer id: ${JSON.stringify(id)}`);
  if (calls.has(id)) return diagnose(`ignored a second call with the running id ${id}`);
  const call = {
    id,
    finished: false,
    user: message.user ?? { id: "", type: "system", identities: [], data: {}, custom_data: {} },
    request: message.request ?? {},
  };
  calls.set(id, call);
  if (!app.initialised) return finishCall(call, { error: { name: "Error", message: "the worker has not been sent init", stack: "" } });
  if (!hasFunction(name)) {
    return finishCall(call, { error: { name: "FunctionNotFound", message: `function not found: '${name}'`, stack: "" } });
  }
  let args;
  try {
    args = fromProtocol(message.arguments ?? [], "arguments");
    if (!Array.isArray(args)) throw new Error("arguments must be an array");
  } catch (error) {
    return finishCall(call, { error: { name: "ArgumentsInvalid", message: error.message, stack: functionStack(error.stack) } });
  }
  runFrame(call, name, args, message.run_as_system === true, 1).then(
    (result) => succeed(call, result),
    (error) => finishCall(call, { error: describeError(error) }),
  );
}

function answerRequest(message) {
  const pending = pendingRequests.get(message.request);
  if (!pending) {
    // A reply for a call that has ended is expected (the function did not wait); others are the host's slip.
    if (!(Number.isInteger(message.request) && message.request > 0 && message.request <= lastRequest)) {
      diagnose(`ignored a reply to unknown request ${JSON.stringify(message.request)}`);
    }
    return;
  }
  pendingRequests.delete(message.request);
  if (message.error) {
    const error = new Error(String(message.error.message ?? "the service request failed"));
    if (message.error.code !== undefined) error.code = message.error.code;
    return pending.reject(error);
  }
  try {
    pending.resolve(fromProtocol(message.result, "reply"));
  } catch (error) {
    pending.reject(error);
  }
}

const handlers = { init: initialise, call: startCall, reply: answerRequest };

function handleLine(line) {
  if (!line.trim()) return;
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return diagnose(`ignored a line that is not JSON: ${line.slice(0, 200)}`);
  }
  const type = message !== null && typeof message === "object" ? message.type : undefined;
  if (typeof type !== "string" || !Object.hasOwn(handlers, type)) {
    return diagnose(`ignored a message of unknown type: ${line.slice(0, 200)}`);
  }
  try {
    handlers[type](message);
  } catch (error) {
    diagnose(`failed to handle a ${message.type} message: ${util.inspect(error)}`);
  }
}

const input = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
input.on("line", handleLine);
// The host closed our stdin: it is done with this worker.
input.on("close", () => exitProcess(0));
