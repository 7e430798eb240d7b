"use strict";
// The BSON and EJSON globals, tested in-process (bson.js is loaded straight from the worker's folder).

const assert = require("node:assert/strict");

function run(bsonPath, test) {
  const { BSON, EJSON } = require(bsonPath);
  const { ObjectId, Decimal128, Long, Int32, Double, Binary, UUID, BSONRegExp, Timestamp, MinKey, MaxKey } = BSON;

  test("BSON.ObjectId", () => {
    const id = new ObjectId();
    assert.match(id.toHexString(), /^[0-9a-f]{24}$/);
    assert.ok(Math.abs(id.getTimestamp().getTime() - Date.now()) < 5000);
    assert.notEqual(new ObjectId().toHexString(), id.toHexString());
    const fixed = new ObjectId("65F00000000000000000ABCD");
    assert.equal(fixed.toString(), "65f00000000000000000abcd");
    assert.equal(JSON.stringify({ fixed }), '{"fixed":"65f00000000000000000abcd"}');
    assert.ok(fixed.equals("65f00000000000000000ABCD") && fixed.equals(new ObjectId(fixed)) && !fixed.equals(id));
    assert.equal(fixed.getTimestamp().getTime(), 0x65f00000 * 1000);
    assert.equal(fixed.id.length, 12);
    assert.ok(ObjectId.isValid("65f00000000000000000abcd") && !ObjectId.isValid("xyz") && ObjectId.isValid(fixed));
    assert.throws(() => new ObjectId("nope"), /ObjectId/);
  });

  test("BSON.Decimal128", () => {
    const cases = [["1.5", "1.5"], ["0.00", "0.00"], ["-0", "-0"], ["1E+3", "1E+3"], ["1000", "1000"], ["0.0000001", "1E-7"],
      ["123.456e-10", "1.23456E-8"], ["nan", "NaN"], ["-Inf", "-Infinity"], ["+Infinity", "Infinity"], [".5", "0.5"],
      ["9999999999999999999999999999999999", "9999999999999999999999999999999999"], ["1e6144", "1.000000000000000000000000000000000E+6144"]];
    for (const [text, canonical] of cases) {
      const decimal = Decimal128.fromString(text);
      assert.equal(decimal.toString(), canonical, text);
      assert.equal(new Decimal128(decimal.bytes).toString(), canonical, `${text} via bytes`);
    }
    for (const bad of ["", "1.2.3", "abc", "1e", "12345678901234567890123456789012345", "1e6200", "1e-6200", " 1"]) {
      assert.throws(() => Decimal128.fromString(bad), /Decimal128/, bad);
    }
    assert.deepEqual(Decimal128.fromString("2.50").toJSON(), { $numberDecimal: "2.50" });
  });

  test("BSON.Long, Int32, Double", () => {
    const long = Long.fromString("9223372036854775807");
    assert.equal(long.toBigInt(), 2n ** 63n - 1n);
    assert.equal(long.toString(), "9223372036854775807");
    assert.equal(Long.fromNumber(-42).toNumber(), -42);
    assert.equal(Long.fromNumber(2 ** 70).toString(), "9223372036854775807");
    assert.equal(Long.fromBigInt(-5n).toString(), "-5");
    assert.equal(Long.fromNumber(40) + 2, 42);
    assert.ok(Long.fromString("7").equals(7) && Long.fromString("7").equals(Long.fromBigInt(7n)));
    assert.throws(() => Long.fromString("9223372036854775808"), /64-bit/);
    assert.equal(new Int32(7.9).value, 7);
    assert.equal(new Double(2) * 2, 4);
    assert.equal(new Double(2.5).value, 2.5);
  });

  test("BSON.Binary and UUID", () => {
    const binary = new Binary(Buffer.from([1, 2, 255]), 0x80);
    assert.equal(binary.toString("hex"), "0102ff");
    assert.equal(binary.toString("base64"), "AQL/");
    assert.equal(binary.sub_type, 0x80);
    assert.deepEqual([...new Binary("AQL/").buffer], [1, 2, 255]);
    assert.deepEqual([...new Binary(new Uint8Array([9])).buffer], [9]);
    const uuid = new UUID();
    assert.match(uuid.toString(), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.ok(uuid instanceof Binary && uuid.sub_type === 4);
    const fixed = new UUID("0F8FAD5B-D9CB-469F-A165-70867728950E");
    assert.equal(fixed.toHexString(), "0f8fad5b-d9cb-469f-a165-70867728950e");
    assert.equal(fixed.toHexString(false), "0f8fad5bd9cb469fa16570867728950e");
    assert.ok(fixed.equals("0f8fad5bd9cb469fa16570867728950e"));
    assert.throws(() => new UUID("not-a-uuid"), /UUID/);
  });

  test("BSON.BSONRegExp, Timestamp, MinKey, MaxKey", () => {
    assert.equal(new BSONRegExp("a", "xmi").options, "imx");
    assert.throws(() => new BSONRegExp("a", "g"), /option/);
    const ts = new Timestamp({ t: 10, i: 3 });
    assert.deepEqual([ts.t, ts.i], [10, 3]);
    assert.equal(new MinKey()._bsontype, "MinKey");
    assert.equal(new MaxKey()._bsontype, "MaxKey");
  });

  test("EJSON.stringify / serialize: relaxed by default, canonical on request", () => {
    const value = { n: 1, d: 2.5, when: new Date(0), old: new Date(-1), long: Long.fromNumber(5), id: new ObjectId("65f00000000000000000abcd") };
    assert.equal(EJSON.stringify(value),
      '{"n":1,"d":2.5,"when":{"$date":"1970-01-01T00:00:00.000Z"},"old":{"$date":{"$numberLong":"-1"}},"long":5,"id":{"$oid":"65f00000000000000000abcd"}}');
    assert.deepEqual(EJSON.serialize({ n: 1, d: 2.5, x: NaN }, { relaxed: false }),
      { n: { $numberInt: "1" }, d: { $numberDouble: "2.5" }, x: { $numberDouble: "NaN" } });
    assert.equal(EJSON.stringify({ a: 1 }, { relaxed: false }), '{"a":{"$numberInt":"1"}}');
    assert.equal(EJSON.stringify({ a: 1 }, null, 1, { relaxed: false }), '{\n "a": {\n  "$numberInt": "1"\n }\n}');
    assert.deepEqual(EJSON.serialize(NaN), { $numberDouble: "NaN" });
    assert.throws(() => EJSON.stringify({ f() {} }), /value\.f is a function/);
  });

  test("EJSON.parse / deserialize: relaxed gives numbers, canonical gives wrappers", () => {
    const text = '{"i":{"$numberInt":"1"},"d":{"$numberDouble":"2.0"},"l":{"$numberLong":"3"},"big":{"$numberLong":"9007199254740993"},"t":{"$date":"2024-01-02T00:00:00Z"}}';
    const relaxed = EJSON.parse(text);
    assert.deepEqual([relaxed.i, relaxed.d, relaxed.l], [1, 2, 3]);
    assert.ok(relaxed.big instanceof Long && relaxed.t instanceof Date);
    const canonical = EJSON.parse(text, { relaxed: false });
    assert.ok(canonical.i instanceof Int32 && canonical.d instanceof Double && canonical.l instanceof Long);
    assert.ok(EJSON.deserialize({ $oid: "65f00000000000000000abcd" }) instanceof ObjectId);
    assert.deepEqual(EJSON.parse('{"$set":{"a":1}}'), { $set: { a: 1 } });
    assert.throws(() => EJSON.parse('{"$oid":"xyz"}'), /\$oid/);
  });
}

module.exports = { run };
