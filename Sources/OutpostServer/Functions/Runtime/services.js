"use strict";
// `context.services.get("mongodb-atlas")` for Outpost's function worker: the MongoDB collection API of
// App Services, each method turned into one `service` request that the server answers with what its
// Data API would answer. Results are reshaped to what the MongoDB Node driver / App Services return.

/**
 * A find or aggregate cursor. Nothing is sent until toArray() (or await, as the cursor is thenable);
 * sort/limit/skip/project only add to the request, and only find's cursor takes them.
 */
class Cursor {
  #send;
  #spec;
  #chainable;
  #result;

  constructor(send, spec, chainable) {
    this.#send = send;
    this.#spec = spec;
    this.#chainable = chainable;
  }

  #set(key, value) {
    if (!this.#chainable) throw new Error(`an aggregate cursor has no .${key}(); add a $${key} stage to the pipeline`);
    if (this.#result) throw new Error(`.${key}() on a cursor whose documents were already requested`);
    this.#spec[key] = value;
    return this;
  }

  sort(sort) { return this.#set("sort", sort); }
  limit(limit) { return this.#set("limit", limit); }
  skip(skip) { return this.#set("skip", skip); }
  project(projection) { return this.#set("projection", projection); }

  toArray() {
    this.#result ??= this.#send(this.#spec).then((answer) => answer?.documents ?? []);
    return this.#result;
  }

  then(onFulfilled, onRejected) { return this.toArray().then(onFulfilled, onRejected); }
  catch(onRejected) { return this.toArray().catch(onRejected); }

  async *[Symbol.asyncIterator]() {
    yield* await this.toArray();
  }
}

function countOf(value) {
  return Number(value ?? 0);
}

function updateResult(answer) {
  const result = { matchedCount: countOf(answer?.matchedCount), modifiedCount: countOf(answer?.modifiedCount) };
  if (answer?.upsertedId !== undefined && answer?.upsertedId !== null) result.upsertedId = answer.upsertedId;
  return result;
}

/** Properties that are never collection methods: reading them must not produce a throwing stub. */
const NOT_METHODS = new Set(["then", "catch", "toJSON", "constructor", "inspect", "valueOf", "toString"]);

/**
 * The collection object. Methods Outpost's Data API has no counterpart for (findOneAndUpdate, watch,
 * bulkWrite…) exist but throw, so that the message says so rather than "is not a function".
 */
function makeCollection(serviceName, database, collection, request) {
  const send = (action, body) => request({ service: serviceName, database, collection, action, body });
  const methods = {
    find(filter = {}, projection = undefined, options = {}) {
      const spec = { filter, projection: projection ?? options.projection, sort: options.sort, limit: options.limit, skip: options.skip };
      return new Cursor((body) => send("find", body), spec, true);
    },
    findOne(filter = {}, projection = undefined, options = {}) {
      return send("findOne", { filter, projection: projection ?? options.projection, sort: options.sort })
        .then((answer) => answer?.document ?? null);
    },
    insertOne(document) {
      return send("insertOne", { document }).then((answer) => ({ insertedId: answer?.insertedId }));
    },
    insertMany(documents) {
      if (!Array.isArray(documents)) return Promise.reject(new TypeError("insertMany needs an array of documents"));
      return send("insertMany", { documents }).then((answer) => ({ insertedIds: answer?.insertedIds ?? [] }));
    },
    updateOne(filter, update, options = {}) {
      return send("updateOne", { filter, update, upsert: options.upsert }).then(updateResult);
    },
    updateMany(filter, update, options = {}) {
      return send("updateMany", { filter, update, upsert: options.upsert }).then(updateResult);
    },
    deleteOne(filter = {}) {
      return send("deleteOne", { filter }).then((answer) => ({ deletedCount: countOf(answer?.deletedCount) }));
    },
    deleteMany(filter = {}) {
      return send("deleteMany", { filter }).then((answer) => ({ deletedCount: countOf(answer?.deletedCount) }));
    },
    count(filter = {}) {
      return send("count", { filter }).then((answer) => countOf(answer?.count));
    },
    countDocuments(filter = {}) {
      return methods.count(filter);
    },
    aggregate(pipeline = []) {
      return new Cursor((body) => send("aggregate", body), { pipeline }, false);
    },
  };
  return new Proxy(methods, {
    get(target, property) {
      if (typeof property === "symbol" || Object.hasOwn(target, property) || NOT_METHODS.has(property)) return target[property];
      return function unsupported() {
        throw new Error(`'${property}' is not supported by Outpost's ${serviceName} service`);
      };
    },
  });
}

/** The service object: service.db(name).collection(name). `request` sends one service request. */
function makeServiceClient(serviceName, request) {
  return {
    db(database) {
      return {
        collection(collection) { return makeCollection(serviceName, String(database), String(collection), request); },
        getCollection(collection) { return makeCollection(serviceName, String(database), String(collection), request); },
      };
    },
  };
}

module.exports = { makeServiceClient };
