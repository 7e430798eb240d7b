"use strict";
// Extended JSON v2 for Outpost's function runtime: the `EJSON` global functions see, and the canonical
// form the worker's protocol carries. Kept apart from bson.js (which defines the value types and hands
// them in) only to keep each file readable; bson.js is the one the worker loads.

/** Builds the codec over the BSON value types that bson.js defines. */
module.exports = function makeExtendedJSON(types) {
  const {
    ObjectId, Decimal128, Long, Int32, Double, Binary, UUID, BSONRegExp, Timestamp, MinKey, MaxKey, BSONError,
    formatDouble, isHex, UUID_TEXT,
  } = types;
  const INT32_MIN = -2147483648;
  const INT32_MAX = 2147483647;

  function pathJoin(path, key) {
    return typeof key === "number" ? `${path}[${key}]` : `${path}.${key}`;
  }

  /**
   * JS value → Extended JSON object. Canonical (`relaxed: false`) is what the worker's protocol uses;
   * relaxed writes numbers as JSON numbers. Functions, symbols and cycles throw, naming `path`.
   */
  function encode(value, relaxed, path = "value", ancestors = new Set()) {
    switch (typeof value) {
      case "undefined": return null;
      case "boolean": case "string": return value;
      case "number": return encodeNumber(value, relaxed);
      case "bigint":
        if (value < -(2n ** 63n) || value >= 2n ** 63n) throw new BSONError(`${path}: ${value} is outside the 64-bit integer range`);
        return encodeLong(value, relaxed);
      case "function": case "symbol":
        throw new BSONError(`${path} is a ${typeof value}, which has no BSON form`);
    }
    if (value === null) return null;
    if (value instanceof Int32) return relaxed ? value.value : { $numberInt: String(value.value) };
    if (value instanceof Double) {
      return relaxed && Number.isFinite(value.value) && !Object.is(value.value, -0)
        ? value.value : { $numberDouble: formatDouble(value.value) };
    }
    if (value instanceof Long) return encodeLong(value.toBigInt(), relaxed);
    if (value instanceof Decimal128) return { $numberDecimal: value.toString() };
    if (value instanceof ObjectId) return { $oid: value.toHexString() };
    if (value instanceof Date) {
      const ms = value.getTime();
      if (Number.isNaN(ms)) throw new BSONError(`${path} is an invalid Date`);
      const year = value.getUTCFullYear();
      if (relaxed && year >= 1970 && year <= 9999) return { $date: value.toISOString() };
      return { $date: { $numberLong: String(ms) } };
    }
    if (value instanceof Binary) {
      return { $binary: { base64: value.buffer.toString("base64"), subType: value.sub_type.toString(16).padStart(2, "0") } };
    }
    if (value instanceof Uint8Array) return { $binary: { base64: Buffer.from(value).toString("base64"), subType: "00" } };
    if (value instanceof RegExp) value = BSONRegExp.fromRegExp(value);
    if (value instanceof BSONRegExp) return { $regularExpression: { pattern: value.pattern, options: value.options } };
    if (value instanceof Timestamp) return { $timestamp: { t: value.t, i: value.i } };
    if (value instanceof MinKey) return { $minKey: 1 };
    if (value instanceof MaxKey) return { $maxKey: 1 };
    if (value instanceof Number || value instanceof String || value instanceof Boolean) {
      return encode(value.valueOf(), relaxed, path, ancestors);
    }
    if (ancestors.has(value)) throw new BSONError(`${path} refers back to itself (a cycle)`);
    ancestors.add(value);
    try {
      if (Array.isArray(value) || value instanceof Set) {
        return Array.from(value, (item, index) => encode(item, relaxed, pathJoin(path, index), ancestors));
      }
      if (typeof value.toJSON === "function" && !(value instanceof Map)) {
        const replaced = value.toJSON();
        if (replaced !== value) return encode(replaced, relaxed, path, ancestors);
      }
      const entries = value instanceof Map ? [...value].map(([k, v]) => [String(k), v]) : Object.entries(value);
      const out = {};
      for (const [key, item] of entries) {
        if (item === undefined) continue;
        setOwn(out, key, encode(item, relaxed, pathJoin(path, key), ancestors));
      }
      return out;
    } finally {
      ancestors.delete(value);
    }
  }

  function encodeNumber(value, relaxed) {
    if (relaxed) return Number.isFinite(value) && !Object.is(value, -0) ? value : { $numberDouble: formatDouble(value) };
    if (Number.isInteger(value) && !Object.is(value, -0)) {
      if (value >= INT32_MIN && value <= INT32_MAX) return { $numberInt: String(value) };
      if (Number.isSafeInteger(value)) return { $numberLong: String(value) };
    }
    return { $numberDouble: formatDouble(value) };
  }

  function encodeLong(value, relaxed) {
    if (relaxed && value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(value);
    return { $numberLong: value.toString() };
  }

  /** Assigns even a "__proto__" key as an own property (plain assignment would change the prototype). */
  function setOwn(object, key, value) {
    if (key === "__proto__") Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
    else object[key] = value;
  }

  function onlyKeys(object, ...keys) {
    const own = Object.keys(object);
    return own.length === keys.length && keys.every((k) => own.includes(k));
  }

  const INTEGER_TEXT = /^-?\d+$/;

  /**
   * Extended JSON object → JS value. `mode` is "relaxed" (plain numbers), "canonical" (Int32/Double/Long
   * wrappers, as js-bson's relaxed: false) or "protocol" (the worker's own: int32 → number, a double
   * only when integral or special stays a Double, so that 2.0 survives a round trip as a double).
   */
  function decode(value, mode, path = "value") {
    if (Array.isArray(value)) return value.map((item, index) => decode(item, mode, pathJoin(path, index)));
    if (typeof value === "number") {
      if (mode !== "canonical") return value;
      if (Number.isInteger(value) && value >= INT32_MIN && value <= INT32_MAX && !Object.is(value, -0)) return new Int32(value);
      return new Double(value);
    }
    if (value === null || typeof value !== "object") return value;
    const keys = Object.keys(value);
    if (keys.length > 0 && keys[0].startsWith("$")) {
      const special = decodeWrapper(value, keys[0], mode, path);
      if (special !== NOT_A_WRAPPER) return special;
    }
    const out = {};
    for (const key of keys) setOwn(out, key, decode(value[key], mode, pathJoin(path, key)));
    return out;
  }

  const NOT_A_WRAPPER = Symbol("not a wrapper");

  function decodeWrapper(object, key, mode, path) {
    const inner = object[key];
    const bad = (why) => new BSONError(`${path}: ${why}`);
    if (!onlyKeys(object, key)) return NOT_A_WRAPPER;
    switch (key) {
      case "$oid":
        if (!isHex(inner, 24)) throw bad("$oid needs 24 hex digits");
        return new ObjectId(inner);
      case "$numberInt": {
        if (typeof inner !== "string" || !INTEGER_TEXT.test(inner) || Number(inner) < INT32_MIN || Number(inner) > INT32_MAX) {
          throw bad(`"${inner}" is not a $numberInt`);
        }
        return mode === "canonical" ? new Int32(Number(inner)) : Number(inner);
      }
      case "$numberLong": {
        if (typeof inner !== "string" || !INTEGER_TEXT.test(inner)) throw bad(`"${inner}" is not a $numberLong`);
        const long = Long.fromString(inner);
        const safe = Number.isSafeInteger(long.toNumber());
        return mode === "relaxed" && safe ? long.toNumber() : long;
      }
      case "$numberDouble": return decodeDouble(inner, mode, bad);
      case "$numberDecimal":
        if (typeof inner !== "string") throw bad("$numberDecimal needs a string");
        return Decimal128.fromString(inner);
      case "$date": return decodeDate(inner, bad);
      case "$binary": {
        if (typeof inner !== "object" || inner === null || !onlyKeys(inner, "base64", "subType")) throw bad("$binary needs base64 and subType");
        const subType = parseInt(inner.subType, 16);
        if (!/^[0-9a-fA-F]{1,2}$/.test(inner.subType)) throw bad(`"${inner.subType}" is not a binary subtype`);
        const bytes = Buffer.from(inner.base64, "base64");
        return subType === Binary.SUBTYPE_UUID && bytes.length === 16 ? new UUID(bytes) : new Binary(bytes, subType);
      }
      case "$uuid":
        if (typeof inner !== "string" || !UUID_TEXT.test(inner)) throw bad("$uuid needs a UUID string");
        return new UUID(inner);
      case "$regularExpression":
        if (typeof inner !== "object" || inner === null || !onlyKeys(inner, "pattern", "options")) throw bad("$regularExpression needs pattern and options");
        return new BSONRegExp(inner.pattern, inner.options);
      case "$timestamp":
        if (typeof inner !== "object" || inner === null || !onlyKeys(inner, "t", "i")) throw bad("$timestamp needs t and i");
        return new Timestamp({ t: inner.t, i: inner.i });
      case "$minKey": return new MinKey();
      case "$maxKey": return new MaxKey();
      case "$undefined": return undefined;
      case "$symbol": return String(inner);
      default: return NOT_A_WRAPPER;
    }
  }

  function decodeDouble(text, mode, bad) {
    const specials = { NaN: NaN, Infinity: Infinity, "-Infinity": -Infinity, "-0.0": -0, "-0": -0 };
    let number;
    if (typeof text === "string" && Object.hasOwn(specials, text)) number = specials[text];
    else if (typeof text === "string" && /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) number = Number(text);
    else throw bad(`"${text}" is not a $numberDouble`);
    if (mode === "relaxed") return number;
    if (mode === "canonical") return new Double(number);
    return Number.isFinite(number) && !Number.isInteger(number) ? number : new Double(number);
  }

  function decodeDate(inner, bad) {
    let date;
    if (typeof inner === "string") date = new Date(inner);
    else if (typeof inner === "number") date = new Date(inner);
    else if (inner && typeof inner === "object" && onlyKeys(inner, "$numberLong") && INTEGER_TEXT.test(inner.$numberLong)) {
      date = new Date(Number(inner.$numberLong));
    }
    if (!date || Number.isNaN(date.getTime())) throw bad("$date needs {$numberLong: ms} or an ISO-8601 string");
    return date;
  }

  // ---------------------------------------------------------------------------------------------
  // The public EJSON object; relaxed is the default, as in js-bson.
  function relaxedOption(options) {
    return !(options && typeof options === "object" && options.relaxed === false);
  }

  const EJSON = {
    serialize(value, options) { return encode(value, relaxedOption(options)); },
    deserialize(object, options) { return decode(object, relaxedOption(options) ? "relaxed" : "canonical"); },
    /** `stringify(value, options)` or `stringify(value, replacer, space, options)`, as js-bson accepts. */
    stringify(value, replacer, space, options) {
      if (replacer && typeof replacer === "object" && !Array.isArray(replacer)) { options = replacer; replacer = undefined; space = 0; }
      if (space && typeof space === "object") { options = space; space = 0; }
      return JSON.stringify(encode(value, relaxedOption(options)), replacer, space);
    },
    parse(text, options) { return EJSON.deserialize(JSON.parse(text), options); },
  };

  Object.freeze(EJSON);
  return {
    EJSON,
    /** JS value → canonical Extended JSON for the worker protocol; `path` names the value in errors. */
    toProtocol: (value, path) => encode(value, false, path),
    /** Canonical Extended JSON from the host → the JS values functions see. */
    fromProtocol: (value, path) => decode(value, "protocol", path),
  };
};
