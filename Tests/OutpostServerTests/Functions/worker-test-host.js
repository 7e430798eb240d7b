"use strict";
// The host side of the function worker's protocol, for worker-test.js: starts a worker, sends it
// init/call/reply lines, answers its service requests with canned Data API answers, and checks that
// every line it writes to stdout is a protocol line.

const { spawn } = require("node:child_process");
const readline = require("node:readline");

/** The ObjectIds the canned answers use: 65f0…0n. */
function cannedOid(n) {
  return { $oid: `65f0000000000000000000${String(n).padStart(2, "0")}` };
}

/** What Outpost's Data API would answer, by action; `{fail: true}` in a filter gets an error reply. */
function cannedAnswer(message) {
  const { action, body } = message;
  if (body.filter && body.filter.fail === true) return { error: { message: "no such collection", code: "NamespaceNotFound" } };
  const oid = cannedOid;
  const int = (n) => ({ $numberInt: String(n) });
  switch (action) {
    case "find":
      return { result: { documents: [{ _id: oid(1), n: int(1) }, { _id: oid(2), n: int(2) }] } };
    case "findOne":
      return { result: { document: body.filter.missing === true ? null : { _id: oid(1), n: int(1) } } };
    case "insertOne": return { result: { insertedId: oid(3) } };
    case "insertMany": return { result: { insertedIds: [oid(4), oid(5)] } };
    case "updateOne":
    case "updateMany":
      return { result: { matchedCount: int(1), modifiedCount: int(1), ...(body.upsert ? { upsertedId: oid(6) } : {}) } };
    case "deleteOne": return { result: { deletedCount: int(1) } };
    case "deleteMany": return { result: { deletedCount: int(3) } };
    case "count": return { result: { count: { $numberLong: "7" } } };
    case "aggregate": return { result: { documents: [{ _id: null, total: int(3) }] } };
    default: return { error: { message: `unexpected action ${action}`, code: "BadAction" } };
  }
}

class TestWorker {
  constructor(workerPath) {
    this.child = spawn(process.execPath, ["--max-old-space-size=64", workerPath], { stdio: ["pipe", "pipe", "pipe"] });
    this.stderr = "";
    this.corrupt = [];        // stdout lines that are not JSON
    this.unexpected = [];     // protocol lines that belong to no running call
    this.calls = new Map();
    this.nextId = 1;
    this.readyWaiters = [];
    this.child.stderr.setEncoding("utf8");
    this.child.stderr.on("data", (text) => { this.stderr += text; });
    this.exited = new Promise((resolve) => this.child.on("exit", (code, signal) => resolve({ code, signal })));
    readline.createInterface({ input: this.child.stdout }).on("line", (line) => this.receive(line));
  }

  send(message) {
    this.child.stdin.write(`${typeof message === "string" ? message : JSON.stringify(message)}\n`);
  }

  /**
   * Sends init (defaults merged with `overrides`) and resolves with the ready message. A function given
   * as a bare source string is public and not run as system.
   */
  init(overrides) {
    const message = {
      type: "init", functions: {}, values: {}, app: { id: "app-id", name: "shop" }, environment: { tag: "" },
      data_sources: ["mongodb-atlas"], allow_network: false, ...overrides,
    };
    for (const [name, fn] of Object.entries(message.functions)) {
      if (typeof fn === "string") message.functions[name] = { source: fn, private: false, run_as_system: false };
    }
    return new Promise((resolve) => {
      this.readyWaiters.push(resolve);
      this.send(message);
    });
  }

  /**
   * Runs a call; resolves with {result | error, logs, services} once its `done` arrives. `responder`
   * answers service requests (canned answers by default) and may return a promise to delay the reply.
   */
  call(name, args = [], options = {}) {
    const id = this.nextId++;
    const state = { logs: [], services: [], responder: options.responder ?? cannedAnswer };
    const done = new Promise((resolve, reject) => {
      state.resolve = resolve;
      state.timer = setTimeout(() => reject(new Error(`call ${id} (${name}) got no done; stderr: ${this.stderr}`)), 4000);
    });
    this.calls.set(id, state);
    this.send({
      type: "call", id, name, arguments: args,
      user: options.user ?? { id: "user-1", type: "normal", identities: [{ id: "i-1", provider_type: "local-userpass" }], data: { email: "a@b.c" }, custom_data: { plan: "pro" } },
      run_as_system: options.runAsSystem ?? false,
      request: options.request ?? { remoteIPAddress: "10.0.0.1" },
    });
    return done;
  }

  receive(line) {
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      this.corrupt.push(line);
      return;
    }
    const callId = message.type === "done" ? message.id : message.call;
    const state = this.calls.get(callId);
    switch (message.type) {
      case "ready":
        this.readyWaiters.shift()?.(message);
        return;
      case "log":
        if (state) state.logs.push(message); else this.unexpected.push(message);
        return;
      case "service":
        if (!state) { this.unexpected.push(message); return; }
        state.services.push(message);
        Promise.resolve(state.responder(message)).then((answer) => {
          if (answer) this.send({ type: "reply", request: message.request, ...answer });
        });
        return;
      case "done":
        if (!state) { this.unexpected.push(message); return; }
        this.calls.delete(callId);
        clearTimeout(state.timer);
        state.resolve({ ...message, logs: state.logs, services: state.services });
        return;
      default:
        this.unexpected.push(message);
    }
  }

  /** Closes stdin and resolves with how the worker exited; rejects (and kills it) if it lingers. */
  close(timeoutMs = 2000) {
    this.child.stdin.end();
    let timer;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => {
        this.child.kill("SIGKILL");
        reject(new Error(`the worker did not exit within ${timeoutMs} ms of stdin closing`));
      }, timeoutMs);
    });
    return Promise.race([this.exited, timeout]).finally(() => clearTimeout(timer));
  }
}

/** Source text `exports = <fn>` from a function written in the test file (it runs in the worker). */
function source(fn, prefix = "") {
  return `${prefix}exports = ${fn.toString()};`;
}

module.exports = { TestWorker, cannedAnswer, cannedOid, source };
