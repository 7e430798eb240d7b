"use strict";
// Drives Outpost's function worker over its protocol, acting as the server:
//   node worker-test.js <path to function-worker.js>
// Prints "ok <n> tests" and exits 0, or prints the first failure and exits 1.

const assert = require("node:assert/strict");
const http = require("node:http");
const path = require("node:path");
const { TestWorker, cannedOid, source } = require(path.join(__dirname, "worker-test-host.js"));

const workerPath = path.resolve(process.argv[2] ?? "");
const OID = "65f00000000000000000abcd";

const FUNCTIONS = {
  sum: source(function (a, b) { return a + b; }),
  identity: source((...values) => values),
  typeNames: source((...values) => values.map((v) => (v === null ? "null" : typeof v === "object" ? v.constructor.name : typeof v))),
  helperAbove: "function helper(x) { return x * 2; }\nmodule.exports = function (x) { return helper(x); };",
  counter: "let count = 0;\nexports = async function () { count += 1; return count; };",
  notAFunction: "exports = 42;",
  syntaxError: "exports = function ( {",
  throws: source(() => { class QuotaError extends Error { constructor(m) { super(m); this.name = "QuotaError"; } } throw new QuotaError("over quota"); }),
  throwsString: source(() => { throw "plain string"; }),
  rejectsCoded: source(async () => { const e = new Error("coded"); e.code = "E42"; throw e; }),
  context: source(() => ({
    user: context.user, app: context.app, tag: context.environment.tag, request: context.request,
    greeting: context.values.get("greeting"), missing: context.values.get("nope") === undefined,
    idType: context.values.get("owner").constructor.name, system: context.runningAsSystem(),
  })),
  logs: source(() => {
    console.log("%s has %d items", "cart", 3);
    console.info({ a: 1 });
    console.warn("careful");
    console.error("bad", 42);
    console.debug("dbg", [1, 2]);
    globalThis.console.log("via global");
    process.stdout.write("raw stdout\n");
    process.stderr.write(Buffer.from("raw stderr"));
    return "logged";
  }),
  jsValues: source(() => ({
    int: 5, minInt: -2147483648, big: 2 ** 31, unsafe: 2 ** 53, frac: 0.1, negZero: -0, nan: NaN, inf: -Infinity,
    tiny: 5e-324, double: new BSON.Double(3), int32: new BSON.Int32(7), bigint: 1234567890123456789n,
    long: BSON.Long.fromString("-9223372036854775808"), decimal: BSON.Decimal128.fromString("0.10"),
    date: new Date(Date.UTC(2024, 0, 2)), buffer: Buffer.from("hi"), bytes: new Uint8Array([1, 2]),
    regex: /ab+c/gmi, bsonRegex: new BSON.BSONRegExp("x", "xsi"), map: new Map([["k", 1]]),
    withToJSON: { toJSON() { return "custom"; } }, skipped: undefined, list: [undefined, null, true, "s"],
    boxed: new String("boxed"), uuid: new BSON.UUID("0f8fad5b-d9cb-469f-a165-70867728950e"),
    ts: new BSON.Timestamp({ t: 5, i: 6 }), min: new BSON.MinKey(), max: new BSON.MaxKey(),
  })),
  badFunctionResult: source(() => ({ a: { b: () => 1 } })),
  badCycleResult: source(() => { const o = { a: {} }; o.a.self = o; return o; }),
  badBigInt: source(() => 2n ** 64n),
  undefinedResult: source(() => undefined),
  caller: source(async (x) => {
    console.log("in caller");
    const db = context.services.get("mongodb-atlas").db("shop").collection("items");
    await db.count();
    const callee = await context.functions.execute("systemCallee", x, (y) => y + 1, new Date(0));
    const plain = await context.functions.execute("plainCallee");
    let unknown;
    try { await context.functions.execute("nope"); } catch (e) { unknown = `${e instanceof Error}:${e.message}`; }
    return { callee: { ...callee, fn: callee.fn() }, plain, unknown, callerSystem: context.runningAsSystem() };
  }),
  systemCallee: {
    source: source(async (x, add, when) => {
      console.log("in callee");
      await context.services.get("mongodb-atlas").db("shop").collection("items").count();
      return { user: context.user.id, added: add(x), isDate: when instanceof Date, system: context.runningAsSystem(), fn: () => "not serialized" };
    }),
    private: true, run_as_system: true,
  },
  plainCallee: source(async () => {
    await context.services.get("mongodb-atlas").db("shop").collection("items").count();
    return context.runningAsSystem();
  }),
  deep: source((n) => (n === 100 ? n : context.functions.execute("deep", n + 1))),
  recurse: source(async (n) => {
    try { return await context.functions.execute("recurse", n + 1); } catch (e) { return { failedAt: n, message: e.message }; }
  }),
  lingers: source(() => { setInterval(() => {}, 60000); return "timer left running"; }),
  db: source(async (action) => {
    const items = context.services.get("mongodb-atlas").db("shop").collection("items");
    const id = new BSON.ObjectId("65f00000000000000000abcd");
    switch (action) {
      case "find": return items.find({ a: 1 }, { name: 1 }).sort({ name: 1 }).skip(1).limit(2).toArray();
      case "findOptions": return items.find({}, undefined, { sort: { x: -1 }, limit: 3, skip: 4, projection: { x: 1 } });
      case "awaitFind": { const docs = await items.find(); return docs.map((d) => d._id instanceof BSON.ObjectId); }
      case "iterate": { const out = []; for await (const d of items.find().project({ n: 1 })) out.push(d.n); return out; }
      case "findOne": return items.findOne({ _id: id }, { n: 1 }, { sort: { n: 1 } });
      case "findOneMissing": return items.findOne({ missing: true });
      case "insertOne": return items.insertOne({ name: "x", at: new Date(0) });
      case "insertMany": return items.insertMany([{ n: 1 }, { n: 2 }]);
      case "updateOne": return items.updateOne({ n: 1 }, { $set: { n: 2 } }, { upsert: true });
      case "updateMany": return items.updateMany({}, { $inc: { n: 1 } });
      case "deleteOne": return items.deleteOne({ _id: id });
      case "deleteMany": return items.deleteMany({ n: { $gt: 1 } });
      case "count": return items.count({ n: { $gt: 1 } });
      case "countDocuments": return items.countDocuments();
      case "aggregate": return items.aggregate([{ $match: {} }, { $group: { _id: null, total: { $sum: "$n" } } }]).toArray();
      case "fail": try { await items.find({ fail: true }); } catch (e) { return { error: e instanceof Error, message: e.message, code: e.code }; } break;
      case "unsupported": try { items.findOneAndUpdate({}, {}); } catch (e) { return e.message; } break;
      case "otherService": try { context.services.get("mongodb-other"); } catch (e) { return e.message; } break;
    }
    return "no such case";
  }),
  waitsForService: source(async () => {
    console.log("A before");
    const doc = await context.services.get("mongodb-atlas").db("shop").collection("items").findOne({});
    console.log("A after");
    return doc.n;
  }),
  requires: source((names) => names.map((name) => {
    try { return `loaded:${typeof require(name)}`; } catch (e) { return `refused:${e.message}`; }
  })),
  network: source(async () => {
    const out = [];
    try { await fetch("http://127.0.0.1:9/"); } catch (e) { out.push(e.message); }
    try { await context.http.get({ url: "http://127.0.0.1:9/" }); } catch (e) { out.push(e.message); }
    return out;
  }),
  httpGet: source(async (url) => {
    const response = await context.http.post({ url, body: { n: 1 }, encodeBodyAsJSON: true, headers: { "X-Ask": ["yes"] } });
    const viaFetch = await (await fetch(url)).text();
    return { code: response.statusCode, status: response.status.code, body: response.body.text(), header: response.headers["x-test"], viaFetch, http: typeof require("node:http").request };
  }),
  strayRejection: source(() => { Promise.reject(new Error("stray rejection")); return new Promise(() => {}); }),
  timerThrow: source(() => new Promise(() => { setTimeout(() => { throw new Error("thrown in a timer"); }, 1); })),
  exits: source(() => { process.exit(3); }),
};

const VALUES = { greeting: "hello", owner: { $oid: OID } };

const tests = [];
const test = (name, body) => tests.push({ name, body });
let worker;

const ok = (result) => { assert.equal(result.error, undefined, JSON.stringify(result.error)); return result.result; };
const failed = (result) => { assert.ok(result.error, `expected an error, got ${JSON.stringify(result.result)}`); return result.error; };
const int = (n) => ({ $numberInt: String(n) });

test("init → ready with the node version", async () => {
  assert.equal(worker.ready.type, "ready");
  assert.equal(worker.ready.node, process.version);
});

test("call → done with the result", async () => {
  assert.deepEqual(ok(await worker.call("sum", [int(1), int(2)])), int(3));
  assert.deepEqual(ok(await worker.call("sum", [{ $numberDouble: "1.5" }, int(2)])), { $numberDouble: "3.5" });
});

const ROUND_TRIP = [
  int(0), int(-2147483648), { $numberLong: "5" }, { $numberLong: "-9223372036854775808" },
  { $numberDouble: "2.0" }, { $numberDouble: "2.5" }, { $numberDouble: "NaN" }, { $numberDouble: "Infinity" },
  { $numberDouble: "-Infinity" }, { $numberDouble: "-0.0" }, { $numberDouble: "1e+21" }, { $numberDouble: "0.1" },
  { $numberDecimal: "1.5" }, { $numberDecimal: "-0" }, { $numberDecimal: "NaN" }, { $numberDecimal: "-Infinity" },
  { $numberDecimal: "1.23E+40" }, { $date: { $numberLong: "1700000000123" } }, { $date: { $numberLong: "-1000" } },
  { $oid: OID }, { $binary: { base64: "AAEC/w==", subType: "00" } },
  { $binary: { base64: "D4+tW9nLRp+hZXCGdyiVDg==", subType: "04" } }, { $binary: { base64: "", subType: "80" } },
  { $regularExpression: { pattern: "^a.b$", options: "im" } }, { $timestamp: { t: 1700000000, i: 7 } },
  { $minKey: 1 }, { $maxKey: 1 }, "text ✓ 🚀", true, false, null, [int(1), ["x", { $oid: OID }]],
  { $set: { n: int(1) }, nested: { deeper: [null, { $numberLong: "9007199254740993" }] } },
];

test("every BSON type round-trips through an identity function", async () => {
  assert.deepEqual(ok(await worker.call("identity", ROUND_TRIP)), ROUND_TRIP);
  const proto = JSON.parse('{"__proto__":{"x":{"$numberInt":"1"}}}');
  assert.deepEqual(JSON.stringify(ok(await worker.call("identity", [proto]))), JSON.stringify([proto]));
});

test("arguments become the documented JS types", async () => {
  const names = ok(await worker.call("typeNames", [
    int(1), { $numberDouble: "2.5" }, { $numberDouble: "2.0" }, { $numberLong: "1" }, { $numberDecimal: "1" },
    { $date: "2024-01-02T00:00:00Z" }, { $oid: OID }, { $binary: { base64: "", subType: "00" } },
    { $binary: { base64: "D4+tW9nLRp+hZXCGdyiVDg==", subType: "04" } }, { $regularExpression: { pattern: "a", options: "" } },
    { $timestamp: { t: 1, i: 2 } }, { $minKey: 1 }, { $maxKey: 1 }, { $undefined: true }, { $symbol: "s" }, { $where: "x" },
  ]));
  assert.deepEqual(names, ["number", "number", "Double", "Long", "Decimal128", "Date", "ObjectId", "Binary", "UUID",
    "BSONRegExp", "Timestamp", "MinKey", "MaxKey", "undefined", "string", "Object"]);
  assert.deepEqual(ok(await worker.call("identity", [{ $date: "2024-01-02T00:00:00Z" }, { $undefined: true }, { $symbol: "s" }])),
    [{ $date: { $numberLong: "1704153600000" } }, null, "s"]);
  assert.deepEqual(ok(await worker.call("identity", [{ $regularExpression: { pattern: "a", options: "mi" } }])),
    [{ $regularExpression: { pattern: "a", options: "im" } }]);
});

test("JS values serialize to canonical Extended JSON", async () => {
  assert.deepEqual(ok(await worker.call("jsValues")), {
    int: int(5), minInt: int(-2147483648), big: { $numberLong: "2147483648" }, unsafe: { $numberDouble: "9007199254740992.0" },
    frac: { $numberDouble: "0.1" }, negZero: { $numberDouble: "-0.0" }, nan: { $numberDouble: "NaN" }, inf: { $numberDouble: "-Infinity" },
    tiny: { $numberDouble: "5e-324" }, double: { $numberDouble: "3.0" }, int32: int(7), bigint: { $numberLong: "1234567890123456789" },
    long: { $numberLong: "-9223372036854775808" }, decimal: { $numberDecimal: "0.10" },
    date: { $date: { $numberLong: "1704153600000" } }, buffer: { $binary: { base64: "aGk=", subType: "00" } },
    bytes: { $binary: { base64: "AQI=", subType: "00" } }, regex: { $regularExpression: { pattern: "ab+c", options: "im" } },
    bsonRegex: { $regularExpression: { pattern: "x", options: "isx" } }, map: { k: int(1) }, withToJSON: "custom",
    list: [null, null, true, "s"], boxed: "boxed", uuid: { $binary: { base64: "D4+tW9nLRp+hZXCGdyiVDg==", subType: "04" } },
    ts: { $timestamp: { t: 5, i: 6 } }, min: { $minKey: 1 }, max: { $maxKey: 1 },
  });
  assert.equal(ok(await worker.call("undefinedResult")), null);
});

test("results that cannot be serialized end the call with ResultNotSerializable", async () => {
  for (const [name, fragment] of [["badFunctionResult", "result.a.b"], ["badCycleResult", "result.a.self"], ["badBigInt", "64-bit"]]) {
    const error = failed(await worker.call(name));
    assert.equal(error.name, "ResultNotSerializable");
    assert.match(error.message, new RegExp(fragment.replace(/\./g, "\\.")));
  }
});

test("source forms: module.exports with helpers, fresh module state per call", async () => {
  assert.deepEqual(ok(await worker.call("helperAbove", [int(21)])), int(42));
  assert.deepEqual(ok(await worker.call("counter")), int(1));
  assert.deepEqual(ok(await worker.call("counter")), int(1));
});

test("errors: thrown, string, coded, invalid export, syntax error, unknown function", async () => {
  const thrown = failed(await worker.call("throws"));
  assert.deepEqual([thrown.name, thrown.message], ["QuotaError", "over quota"]);
  assert.match(thrown.stack, /functions\/throws\.js/);
  assert.deepEqual([failed(await worker.call("throwsString")).message], ["plain string"]);
  assert.equal(failed(await worker.call("rejectsCoded")).code, "E42");
  const invalid = failed(await worker.call("notAFunction"));
  assert.deepEqual([invalid.name, invalid.message], ["FunctionInvalid", "function 'notAFunction' does not export a function"]);
  assert.equal(failed(await worker.call("syntaxError")).name, "SyntaxError");
  const missing = failed(await worker.call("noSuchFunction"));
  assert.deepEqual([missing.name, missing.message], ["FunctionNotFound", "function not found: 'noSuchFunction'"]);
});

test("context: user, app, environment, request, values, runningAsSystem", async () => {
  const user = { id: "u-9", type: "normal", identities: [{ id: "x", provider_type: "anon-user" }], data: {}, custom_data: { ref: { $oid: OID } } };
  const result = ok(await worker.call("context", [], { user, request: { remoteIPAddress: "1.2.3.4" } }));
  assert.deepEqual(result, {
    user, app: { id: "app-id", name: "shop" }, tag: "", request: { remoteIPAddress: "1.2.3.4" }, greeting: "hello",
    missing: true, idType: "ObjectId", system: false,
  });
  assert.equal(ok(await worker.call("context", [], { runAsSystem: true })).system, true);
});

test("console and stdout/stderr writes become log lines of the call", async () => {
  const result = await worker.call("logs");
  assert.equal(ok(result), "logged");
  assert.deepEqual(result.logs.map(({ type, call, level, message }) => [type, call, level, message]), [
    ["log", result.id, "log", "cart has 3 items"], ["log", result.id, "info", "{ a: 1 }"], ["log", result.id, "warn", "careful"],
    ["log", result.id, "error", "bad 42"], ["log", result.id, "debug", "dbg [ 1, 2 ]"], ["log", result.id, "log", "via global"],
    ["log", result.id, "log", "raw stdout"], ["log", result.id, "error", "raw stderr"],
  ]);
});

test("context.functions.execute: same call and user, JS values, run_as_system per frame", async () => {
  const result = await worker.call("caller", [int(41)]);
  assert.deepEqual(ok(result), {
    callee: { user: "user-1", added: int(42), isDate: true, system: true, fn: "not serialized" },
    plain: false, unknown: "true:function not found: 'nope'", callerSystem: false,
  });
  assert.deepEqual(result.logs.map((l) => [l.call, l.message]), [[result.id, "in caller"], [result.id, "in callee"]]);
  assert.deepEqual(result.services.map((s) => [s.call, s.run_as_system]), [[result.id, false], [result.id, true], [result.id, false]]);
  const asSystem = await worker.call("caller", [int(1)], { runAsSystem: true });
  assert.deepEqual(asSystem.services.map((s) => s.run_as_system), [true, true, true]);
  assert.equal(ok(asSystem).plain, true);
});

test("execute: 100 frames deep works, deeper is refused", async () => {
  assert.deepEqual(ok(await worker.call("deep", [int(1)])), int(100));
  const refused = ok(await worker.call("recurse", [int(1)]));
  assert.deepEqual(refused.failedAt, int(100));
  assert.match(refused.message, /more than 100 nested/);
});

const SERVICE_CASES = {
  find: [{ filter: { a: int(1) }, projection: { name: int(1) }, sort: { name: int(1) }, skip: int(1), limit: int(2) },
    [{ _id: cannedOid(1), n: int(1) }, { _id: cannedOid(2), n: int(2) }]],
  findOptions: [{ filter: {}, projection: { x: int(1) }, sort: { x: int(-1) }, limit: int(3), skip: int(4) }, null],
  awaitFind: [{ filter: {} }, [true, true]],
  iterate: [{ filter: {}, projection: { n: int(1) } }, [int(1), int(2)]],
  findOne: [{ filter: { _id: { $oid: OID } }, projection: { n: int(1) }, sort: { n: int(1) } }, { _id: cannedOid(1), n: int(1) }],
  findOneMissing: [{ filter: { missing: true } }, null],
  insertOne: [{ document: { name: "x", at: { $date: { $numberLong: "0" } } } }, { insertedId: cannedOid(3) }],
  insertMany: [{ documents: [{ n: int(1) }, { n: int(2) }] },
    { insertedIds: [cannedOid(4), cannedOid(5)] }],
  updateOne: [{ filter: { n: int(1) }, update: { $set: { n: int(2) } }, upsert: true },
    { matchedCount: int(1), modifiedCount: int(1), upsertedId: cannedOid(6) }],
  updateMany: [{ filter: {}, update: { $inc: { n: int(1) } } }, { matchedCount: int(1), modifiedCount: int(1) }],
  deleteOne: [{ filter: { _id: { $oid: OID } } }, { deletedCount: int(1) }],
  deleteMany: [{ filter: { n: { $gt: int(1) } } }, { deletedCount: int(3) }],
  count: [{ filter: { n: { $gt: int(1) } } }, int(7)],
  countDocuments: [{ filter: {} }, int(7)],
  aggregate: [{ pipeline: [{ $match: {} }, { $group: { _id: null, total: { $sum: "$n" } } }] }, [{ _id: null, total: int(3) }]],
};

test("services: every collection action, its request body and its result shape", async () => {
  for (const [name, [body, expected]] of Object.entries(SERVICE_CASES)) {
    const result = await worker.call("db", [name]);
    const value = ok(result);
    if (expected !== null) assert.deepEqual(value, expected, name);
    assert.equal(result.services.length, 1, name);
    const { type, call, request, service, database, collection, action, run_as_system } = result.services[0];
    assert.deepEqual({ type, call, service, database, collection, run_as_system },
      { type: "service", call: result.id, service: "mongodb-atlas", database: "shop", collection: "items", run_as_system: false }, name);
    assert.equal(action, name.replace(/Options|Missing/, "").replace(/^(awaitFind|iterate)$/, "find").replace("countDocuments", "count"), name);
    assert.ok(Number.isInteger(request), name);
    assert.deepEqual(result.services[0].body, body, name);
  }
  const requests = [];
  for (let i = 0; i < 2; i++) requests.push((await worker.call("db", ["count"])).services[0].request);
  assert.notEqual(requests[0], requests[1]);
});

test("services: error replies, unsupported methods, unknown services", async () => {
  assert.deepEqual(ok(await worker.call("db", ["fail"])), { error: true, message: "no such collection", code: "NamespaceNotFound" });
  assert.equal(ok(await worker.call("db", ["unsupported"])), "'findOneAndUpdate' is not supported by Outpost's mongodb-atlas service");
  assert.equal(ok(await worker.call("db", ["otherService"])),
    'service "mongodb-other" is not configured; Outpost has the data sources: mongodb-atlas');
});

test("several calls in flight are told apart", async () => {
  let release;
  let requested;
  const serviceSeen = new Promise((resolve) => { requested = resolve; });
  const responder = (message) => { requested(message); return new Promise((resolve) => { release = resolve; }); };
  const first = worker.call("waitsForService", [], { responder });
  await serviceSeen;
  const second = await worker.call("logs");
  assert.equal(ok(second), "logged");
  release({ result: { document: { n: int(5) } } });
  const done = await first;
  assert.deepEqual(ok(done), int(5));
  assert.deepEqual(done.logs.map((l) => [l.call, l.message]), [[done.id, "A before"], [done.id, "A after"]]);
  assert.ok(second.logs.every((l) => l.call === second.id));
});

test("require: built-ins only, dangerous ones refused", async () => {
  const names = ["crypto", "node:util", "child_process", "node:fs", "fs/promises", "vm", "process", "http", "node:https", "dns", "lodash"];
  const answers = ok(await worker.call("requires", [names]));
  assert.deepEqual(answers.slice(0, 2), ["loaded:object", "loaded:object"]);
  for (const [index, name] of names.entries()) if (index >= 2) assert.match(answers[index], /^refused:/, name);
  assert.match(answers[2], /child_process/);
  assert.match(answers[7], /outbound network is off/);
  assert.equal(answers[10], "refused:modules from npm are not available in Outpost's function runtime: 'lodash'");
});

test("without allow_network, fetch and context.http fail", async () => {
  const messages = ok(await worker.call("network"));
  assert.equal(messages.length, 2);
  for (const message of messages) assert.match(message, /outbound network is off for this app/);
});

test("stray rejections, timer exceptions and process.exit end their call; the worker lives on", async () => {
  assert.equal(failed(await worker.call("strayRejection")).message, "stray rejection");
  assert.equal(failed(await worker.call("timerThrow")).message, "thrown in a timer");
  assert.match(failed(await worker.call("exits")).message, /process\.exit is not available/);
  assert.deepEqual(ok(await worker.call("sum", [int(2), int(2)])), int(4));
});

test("lines that are not JSON or of an unknown type go to stderr and are ignored", async () => {
  worker.send("this is not json");
  worker.send({ type: "bogus" });
  assert.deepEqual(ok(await worker.call("sum", [int(1), int(1)])), int(2));
  for (let i = 0; i < 50 && !/unknown type/.test(worker.stderr); i++) await new Promise((r) => setTimeout(r, 10));
  assert.match(worker.stderr, /not JSON: this is not json/);
  assert.match(worker.stderr, /unknown type/);
});

test("with allow_network, context.http, fetch and require('http') work", async () => {
  const server = http.createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => { body += chunk; });
    request.on("end", () => {
      response.setHeader("X-Test", "yes");
      response.end(`${request.method} ${request.headers["x-ask"] ?? "-"} ${body}`);
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const networked = new TestWorker(workerPath);
  try {
    await networked.init({ functions: { httpGet: FUNCTIONS.httpGet }, allow_network: true });
    const url = `http://127.0.0.1:${server.address().port}/`;
    assert.deepEqual(ok(await networked.call("httpGet", [url])), {
      code: int(200), status: int(200), body: 'POST yes {"n":1}', header: ["yes"], viaFetch: "GET - ", http: "function",
    });
  } finally {
    server.close();
    assert.deepEqual(await networked.close(), { code: 0, signal: null });
  }
});

test("stdout carried protocol lines only, all for known calls", async () => {
  assert.deepEqual(worker.corrupt, []);
  assert.deepEqual(worker.unexpected, []);
});

test("stdin closed → the worker exits 0 at once, even with a function's timer running", async () => {
  assert.equal(ok(await worker.call("lingers")), "timer left running");
  const started = Date.now();
  assert.deepEqual(await worker.close(), { code: 0, signal: null });
  assert.ok(Date.now() - started < 1500, `took ${Date.now() - started} ms`);
});

async function main() {
  const started = Date.now();
  setTimeout(() => { console.log("not ok - the test program took longer than 30 s"); process.exit(1); }, 30000).unref();
  require(path.join(__dirname, "worker-test-bson.js")).run(path.join(path.dirname(workerPath), "bson.js"), test);
  worker = new TestWorker(workerPath);
  worker.ready = await worker.init({ functions: FUNCTIONS, values: VALUES });
  for (const { name, body } of tests) {
    try {
      await body();
    } catch (error) {
      console.log(`not ok - ${name}`);
      console.log(error);
      console.log(`worker stderr:\n${worker.stderr}`);
      worker.child.kill();
      process.exit(1);
    }
  }
  console.log(`ok ${tests.length} tests (${Date.now() - started} ms)`);
  process.exit(0);
}

main();
