"use strict";
// The BSON value types and (built in ejson.js) the Extended JSON v2 codec that App Services functions
// see as the globals `BSON` and `EJSON`. Written for Outpost's function worker with nothing but Node built-ins: the worker
// ships as plain files next to the server, so there is no npm install step to pull in js-bson.
// Only what functions and the worker's protocol need is here; the shapes follow js-bson's public API so
// that function code written for Atlas keeps working.

const crypto = require("node:crypto");

const inspect = Symbol.for("nodejs.util.inspect.custom");

/** Raised for malformed BSON values and Extended JSON; the name lets function code tell it apart. */
class BSONError extends Error {
  get name() { return "BSONError"; }
}

function isHex(text, length) {
  return typeof text === "string" && text.length === length && /^[0-9a-fA-F]*$/.test(text);
}

// ---------------------------------------------------------------------------------------------
// ObjectId: 4-byte seconds, 5 bytes random per process, 3-byte counter, as MongoDB drivers make them.
const processUnique = crypto.randomBytes(5);
let objectIdCounter = crypto.randomBytes(3).readUIntBE(0, 3);

class ObjectId {
  constructor(value) {
    if (value === undefined || value === null || typeof value === "number") {
      this.id = ObjectId.generate(value);
    } else if (value instanceof ObjectId) {
      this.id = Buffer.from(value.id);
    } else if (isHex(value, 24)) {
      this.id = Buffer.from(value, "hex");
    } else if (value instanceof Uint8Array && value.length === 12) {
      this.id = Buffer.from(value);
    } else {
      throw new BSONError("ObjectId needs a 24-character hex string, 12 bytes or nothing");
    }
  }
  /** 12 fresh bytes; `time` is seconds since 1970 (now when absent). */
  static generate(time) {
    const bytes = Buffer.alloc(12);
    bytes.writeUInt32BE((time ?? Math.floor(Date.now() / 1000)) >>> 0, 0);
    processUnique.copy(bytes, 4);
    objectIdCounter = (objectIdCounter + 1) % 0x1000000;
    bytes.writeUIntBE(objectIdCounter, 9, 3);
    return bytes;
  }
  static isValid(value) {
    return isHex(value, 24) || value instanceof ObjectId || Number.isInteger(value) ||
      (value instanceof Uint8Array && value.length === 12);
  }
  static createFromHexString(hex) { return new ObjectId(hex); }
  static createFromTime(seconds) {
    const bytes = Buffer.alloc(12);
    bytes.writeUInt32BE(seconds >>> 0, 0);
    return new ObjectId(bytes);
  }
  get _bsontype() { return "ObjectId"; }
  toHexString() { return this.id.toString("hex"); }
  toString() { return this.toHexString(); }
  toJSON() { return this.toHexString(); }
  equals(other) {
    if (other instanceof ObjectId) return this.id.equals(other.id);
    return isHex(other, 24) && other.toLowerCase() === this.toHexString();
  }
  getTimestamp() { return new Date(this.id.readUInt32BE(0) * 1000); }
  [inspect]() { return `new ObjectId("${this.toHexString()}")`; }
}

// ---------------------------------------------------------------------------------------------
// Decimal128: kept as sign, coefficient digits and exponent, checked against IEEE 754-2008
// decimal128's limits (34 digits, exponent -6176…6111) the way js-bson's fromString checks them:
// text that cannot be held exactly is refused rather than rounded.
const DEC_MAX_DIGITS = 34;
const DEC_MAX_EXP = 6111;
const DEC_MIN_EXP = -6176;
const DEC_TEXT = /^([+-])?(?:(\d+)(?:\.(\d*))?|\.(\d+))(?:[eE]([+-]?\d+))?$/;

class Decimal128 {
  constructor(value) {
    if (value instanceof Uint8Array) Object.assign(this, decodeDecimalBytes(value));
    else if (typeof value === "string") Object.assign(this, Decimal128.fromString(value));
    else throw new BSONError("Decimal128 needs a string or 16 bytes");
  }
  static fromString(text) {
    const fail = (why) => new BSONError(`"${text}" is not a valid Decimal128 string: ${why}`);
    if (typeof text !== "string") throw new BSONError("Decimal128.fromString needs a string");
    const special = /^([+-])?(inf|infinity|nan)$/i.exec(text);
    const result = Object.create(Decimal128.prototype);
    if (special) {
      result.negative = special[1] === "-";
      result.kind = special[2].toLowerCase() === "nan" ? "nan" : "infinity";
      if (result.kind === "nan") result.negative = false;
      return result;
    }
    const match = DEC_TEXT.exec(text);
    if (!match) throw fail("not a number");
    const whole = match[2] ?? "";
    const fraction = match[3] ?? match[4] ?? "";
    let digits = (whole + fraction).replace(/^0+/, "") || "0";
    let exponent = Number(match[5] ?? 0) - fraction.length;
    if (!Number.isSafeInteger(exponent)) throw fail("exponent out of range");
    if (digits === "0") {
      exponent = Math.min(Math.max(exponent, DEC_MIN_EXP), DEC_MAX_EXP);
    } else {
      while (digits.length > DEC_MAX_DIGITS && digits.endsWith("0") && exponent < DEC_MAX_EXP) {
        digits = digits.slice(0, -1);
        exponent += 1;
      }
      if (digits.length > DEC_MAX_DIGITS) throw fail("more than 34 significant digits");
      while (exponent > DEC_MAX_EXP && digits.length < DEC_MAX_DIGITS) {
        digits += "0";
        exponent -= 1;
      }
      if (exponent > DEC_MAX_EXP) throw fail("overflow");
      while (exponent < DEC_MIN_EXP && digits.endsWith("0")) {
        digits = digits.slice(0, -1) || "0";
        exponent += 1;
      }
      if (exponent < DEC_MIN_EXP) throw fail("underflow");
    }
    result.kind = "finite";
    result.negative = match[1] === "-";
    result.digits = digits;
    result.exponent = exponent;
    return result;
  }
  get _bsontype() { return "Decimal128"; }
  /** The 16 bytes of the BID encoding, little-endian, as BSON stores them. */
  get bytes() {
    let bits;
    if (this.kind === "nan") bits = 0x7cn << 120n;
    else if (this.kind === "infinity") bits = 0x78n << 120n;
    else bits = (BigInt(this.exponent - DEC_MIN_EXP) << 113n) | BigInt(this.digits);
    if (this.negative) bits |= 1n << 127n;
    const out = Buffer.alloc(16);
    out.writeBigUInt64LE(bits & 0xffffffffffffffffn, 0);
    out.writeBigUInt64LE(bits >> 64n, 8);
    return out;
  }
  /** The string form of the decimal128 specification: plain notation for modest exponents, else scientific. */
  toString() {
    const sign = this.negative ? "-" : "";
    if (this.kind === "nan") return "NaN";
    if (this.kind === "infinity") return `${sign}Infinity`;
    const { digits, exponent } = this;
    const adjusted = exponent + digits.length - 1;
    if (exponent <= 0 && adjusted >= -6) {
      if (exponent === 0) return sign + digits;
      const point = digits.length + exponent;
      if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`;
      return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
    }
    const rest = digits.length > 1 ? `.${digits.slice(1)}` : "";
    return `${sign}${digits[0]}${rest}E${adjusted >= 0 ? "+" : ""}${adjusted}`;
  }
  toJSON() { return { $numberDecimal: this.toString() }; }
  [inspect]() { return `new Decimal128("${this.toString()}")`; }
}

function decodeDecimalBytes(bytes) {
  if (bytes.length !== 16) throw new BSONError("Decimal128 needs exactly 16 bytes");
  const buffer = Buffer.from(bytes);
  const bits = (buffer.readBigUInt64LE(8) << 64n) | buffer.readBigUInt64LE(0);
  const negative = (bits >> 127n) === 1n;
  const top = Number((bits >> 122n) & 0x1fn);
  if (top === 0x1f) return { kind: "nan", negative: false };
  if (top === 0x1e) return { kind: "infinity", negative };
  let exponent;
  let coefficient;
  if ((top >> 3) === 3) {
    // The 11-prefixed form can only hold coefficients above 10^34, which are non-canonical zeros.
    exponent = Number((bits >> 111n) & 0x3fffn) + DEC_MIN_EXP;
    coefficient = 0n;
  } else {
    exponent = Number((bits >> 113n) & 0x3fffn) + DEC_MIN_EXP;
    coefficient = bits & ((1n << 113n) - 1n);
    if (coefficient >= 10n ** 34n) coefficient = 0n;
  }
  return { kind: "finite", negative, digits: coefficient.toString(), exponent };
}

// ---------------------------------------------------------------------------------------------
// Long: a signed 64-bit integer held as js-bson does (low and high 32-bit halves), computed with BigInt.
class Long {
  constructor(low = 0, high = 0, unsigned = false) {
    if (typeof low === "bigint") {
      const value = BigInt.asIntN(64, low);
      low = Number(BigInt.asIntN(32, value));
      high = Number(value >> 32n);
    }
    this.low = low | 0;
    this.high = high | 0;
    this.unsigned = Boolean(unsigned);
  }
  static fromBigInt(value) { return new Long(BigInt(value)); }
  static fromInt(value) { return new Long(BigInt(value | 0)); }
  static fromNumber(value) {
    if (!Number.isFinite(value)) return Number.isNaN(value) ? new Long(0n) : value > 0 ? Long.MAX_VALUE : Long.MIN_VALUE;
    if (value >= 2 ** 63) return Long.MAX_VALUE;
    if (value <= -(2 ** 63)) return Long.MIN_VALUE;
    return new Long(BigInt(Math.trunc(value)));
  }
  static fromString(text, radix = 10) {
    const digits = String(text).trim();
    const pattern = radix === 16 ? /^-?[0-9a-fA-F]+$/ : radix === 10 ? /^[-+]?\d+$/ : null;
    if (!pattern || !pattern.test(digits)) throw new BSONError(`"${text}" is not a base-${radix} integer`);
    const negative = digits.startsWith("-");
    const body = digits.replace(/^[-+]/, "");
    const magnitude = radix === 16 ? BigInt(`0x${body}`) : BigInt(body);
    const value = negative ? -magnitude : magnitude;
    if (value < -(2n ** 63n) || value >= 2n ** 63n) throw new BSONError(`"${text}" is outside the 64-bit range`);
    return new Long(value);
  }
  static isLong(value) { return value instanceof Long; }
  get _bsontype() { return "Long"; }
  toBigInt() { return (BigInt(this.high) << 32n) | BigInt(this.low >>> 0); }
  toNumber() { return this.high * 4294967296 + (this.low >>> 0); }
  toInt() { return this.low; }
  toString(radix = 10) { return this.toBigInt().toString(radix); }
  valueOf() { return this.toNumber(); }
  toJSON() { return this.toString(); }
  equals(other) { return this.toBigInt() === toBigIntValue(other); }
  compare(other) { const a = this.toBigInt(); const b = toBigIntValue(other); return a < b ? -1 : a > b ? 1 : 0; }
  lessThan(other) { return this.compare(other) < 0; }
  greaterThan(other) { return this.compare(other) > 0; }
  isZero() { return this.low === 0 && this.high === 0; }
  isNegative() { return this.high < 0; }
  negate() { return new Long(-this.toBigInt()); }
  add(other) { return new Long(this.toBigInt() + toBigIntValue(other)); }
  subtract(other) { return new Long(this.toBigInt() - toBigIntValue(other)); }
  multiply(other) { return new Long(this.toBigInt() * toBigIntValue(other)); }
  divide(other) { return new Long(this.toBigInt() / toBigIntValue(other)); }
  modulo(other) { return new Long(this.toBigInt() % toBigIntValue(other)); }
  [inspect]() { return `new Long("${this.toString()}")`; }
}
Long.MAX_VALUE = new Long(2n ** 63n - 1n);
Long.MIN_VALUE = new Long(-(2n ** 63n));
Long.ZERO = new Long(0n);

function toBigIntValue(value) {
  if (value instanceof Long) return value.toBigInt();
  if (typeof value === "number") return Long.fromNumber(value).toBigInt();
  if (typeof value === "string") return Long.fromString(value).toBigInt();
  return BigInt(value);
}

/** A number that must stay a 32-bit integer in BSON (a plain JS number could be written as a double). */
class Int32 {
  constructor(value) { this.value = Number(value) | 0; }
  get _bsontype() { return "Int32"; }
  valueOf() { return this.value; }
  toString(radix) { return this.value.toString(radix); }
  toJSON() { return this.value; }
  [inspect]() { return `new Int32(${this.value})`; }
}

/** A number that must stay a double in BSON, even when its value is integral (2.0 is not the int 2). */
class Double {
  constructor(value) { this.value = Number(value); }
  get _bsontype() { return "Double"; }
  valueOf() { return this.value; }
  toString(radix) { return this.value.toString(radix); }
  toJSON() { return this.value; }
  [inspect]() { return `new Double(${formatDouble(this.value)})`; }
}

// ---------------------------------------------------------------------------------------------
class Binary {
  /** `buffer` may be a Buffer, any Uint8Array, an ArrayBuffer, an array of byte values or a base64 string. */
  constructor(buffer = Buffer.alloc(0), subType = Binary.SUBTYPE_DEFAULT) {
    if (typeof buffer === "string") this.buffer = Buffer.from(buffer, "base64");
    else if (buffer instanceof Uint8Array || buffer instanceof ArrayBuffer || Array.isArray(buffer)) this.buffer = Buffer.from(buffer);
    else throw new BSONError("Binary needs bytes or a base64 string");
    if (!Number.isInteger(subType) || subType < 0 || subType > 255) throw new BSONError("Binary subtype must be 0…255");
    this.sub_type = subType;
  }
  static createFromBase64(base64, subType) { return new Binary(Buffer.from(base64, "base64"), subType); }
  static createFromHexString(hex, subType) { return new Binary(Buffer.from(hex, "hex"), subType); }
  static fromBase64(base64, subType) { return Binary.createFromBase64(base64, subType); }
  get _bsontype() { return "Binary"; }
  get position() { return this.buffer.length; }
  length() { return this.buffer.length; }
  value() { return this.buffer.toString("latin1"); }
  toString(encoding = "utf8") { return this.buffer.toString(encoding); }
  toJSON() { return this.buffer.toString("base64"); }
  toUUID() {
    if (this.sub_type !== Binary.SUBTYPE_UUID) throw new BSONError("only a subtype 4 Binary is a UUID");
    return new UUID(this.buffer);
  }
  [inspect]() { return `Binary.createFromBase64("${this.buffer.toString("base64")}", ${this.sub_type})`; }
}
Object.assign(Binary, {
  SUBTYPE_DEFAULT: 0, SUBTYPE_FUNCTION: 1, SUBTYPE_BYTE_ARRAY: 2, SUBTYPE_UUID_OLD: 3,
  SUBTYPE_UUID: 4, SUBTYPE_MD5: 5, SUBTYPE_ENCRYPTED: 6, SUBTYPE_COLUMN: 7, SUBTYPE_USER_DEFINED: 128,
});

const UUID_TEXT = /^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$/;

/** A subtype 4 Binary of 16 bytes; js-bson makes it a Binary subclass, so `instanceof Binary` holds. */
class UUID extends Binary {
  constructor(value) {
    let bytes;
    if (value === undefined || value === null) bytes = Buffer.from(crypto.randomUUID().replace(/-/g, ""), "hex");
    else if (value instanceof Binary) bytes = value.buffer;
    else if (typeof value === "string" && UUID_TEXT.test(value)) bytes = Buffer.from(value.replace(/-/g, ""), "hex");
    else if (value instanceof Uint8Array) bytes = value;
    else throw new BSONError("UUID needs a 32-digit hex string (dashes allowed) or 16 bytes");
    if (bytes.length !== 16) throw new BSONError("UUID needs exactly 16 bytes");
    super(bytes, Binary.SUBTYPE_UUID);
  }
  static generate() { return new UUID().buffer; }
  static isValid(value) {
    if (typeof value === "string") return UUID_TEXT.test(value);
    if (value instanceof Uint8Array) return value.length === 16;
    return value instanceof UUID;
  }
  static createFromHexString(hex) { return new UUID(hex); }
  get id() { return this.buffer; }
  toHexString(includeDashes = true) {
    const hex = this.buffer.toString("hex");
    if (!includeDashes) return hex;
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }
  toString(encoding) { return encoding ? this.buffer.toString(encoding) : this.toHexString(); }
  toJSON() { return this.toHexString(); }
  equals(other) {
    try { return this.buffer.equals(new UUID(other).buffer); } catch { return false; }
  }
  [inspect]() { return `new UUID("${this.toHexString()}")`; }
}

// ---------------------------------------------------------------------------------------------
const REGEX_OPTIONS = "ilmsux";

class BSONRegExp {
  constructor(pattern, options = "") {
    this.pattern = String(pattern);
    const letters = [...String(options)];
    for (const letter of letters) {
      if (!REGEX_OPTIONS.includes(letter)) throw new BSONError(`"${letter}" is not a BSON regular expression option`);
    }
    this.options = [...new Set(letters)].sort().join("");
  }
  /** BSON options from a JS RegExp's flags; g, y and d have no BSON counterpart and are left out. */
  static fromRegExp(regexp) {
    return new BSONRegExp(regexp.source, [...regexp.flags].filter((f) => REGEX_OPTIONS.includes(f)).join(""));
  }
  get _bsontype() { return "BSONRegExp"; }
  [inspect]() { return `new BSONRegExp(${JSON.stringify(this.pattern)}, "${this.options}")`; }
}

class Timestamp {
  /** `new Timestamp({t, i})` as js-bson 5+; also `(low, high)` and a Long, the older forms. */
  constructor(value = { t: 0, i: 0 }, high) {
    if (value instanceof Long) ({ low: value, high } = value);
    if (typeof value === "object" && value !== null) {
      this.t = Number(value.t) >>> 0;
      this.i = Number(value.i) >>> 0;
    } else {
      this.i = Number(value) >>> 0;
      this.t = Number(high) >>> 0;
    }
  }
  get _bsontype() { return "Timestamp"; }
  getHighBits() { return this.t; }
  getLowBits() { return this.i; }
  toLong() { return new Long(this.i, this.t); }
  equals(other) { return other instanceof Timestamp && other.t === this.t && other.i === this.i; }
  toJSON() { return { $timestamp: { t: this.t, i: this.i } }; }
  [inspect]() { return `new Timestamp({ t: ${this.t}, i: ${this.i} })`; }
}

class MinKey {
  get _bsontype() { return "MinKey"; }
  [inspect]() { return "new MinKey()"; }
}

class MaxKey {
  get _bsontype() { return "MaxKey"; }
  [inspect]() { return "new MaxKey()"; }
}

/** A double's text that parses back to exactly the same value; integral values keep a ".0". */
function formatDouble(value) {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "Infinity";
  if (value === -Infinity) return "-Infinity";
  if (Object.is(value, -0)) return "-0.0";
  const text = String(value);
  return Number.isInteger(value) && !/[e.]/.test(text) ? `${text}.0` : text;
}

const codec = require(require("node:path").join(__dirname, "ejson.js"))({
  ObjectId, Decimal128, Long, Int32, Double, Binary, UUID, BSONRegExp, Timestamp, MinKey, MaxKey, BSONError,
  formatDouble, isHex, UUID_TEXT,
});
const { EJSON } = codec;

const BSON = Object.freeze({
  ObjectId, Decimal128, Long, Int32, Double, Binary, UUID, BSONRegExp, Timestamp, MinKey, MaxKey, BSONError, EJSON,
});

module.exports = { BSON, EJSON, toProtocol: codec.toProtocol, fromProtocol: codec.fromProtocol };
