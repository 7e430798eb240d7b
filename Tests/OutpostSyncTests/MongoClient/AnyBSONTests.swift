import Foundation
import Outpost
import Testing

/// `import Outpost` makes `Document` Realm's `[String: AnyBSON?]` (OutpostCore's struct of that name is not exported).
@Suite struct AnyBSONTests {
    /// Realm's `MinKey`/`MaxKey` values round-trip through `AnyBSON` (and nothing else becomes them).
    @Test func minAndMaxKeysRoundTrip() {
        #expect(AnyBSON(MinKey()) == .minKey)
        #expect(AnyBSON(MaxKey()) == .maxKey)
        let min: MinKey? = AnyBSON.minKey.value()
        let max: MaxKey? = AnyBSON.maxKey.value()
        #expect(min == MinKey())
        #expect(max == MaxKey())
        let notMin: MinKey? = AnyBSON.null.value()
        #expect(notMin == nil)
        let notMax: MaxKey? = AnyBSON.minKey.value()
        #expect(notMax == nil)
    }

    @Test func documentIsRealmsDictionary() {
        let document: Document = ["name": "Rex", "age": 3, "weight": 4.5, "good": true, "tags": ["a", nil], "vet": nil]
        #expect(document["age"]??.int64Value == 3)
        #expect(document["name"]??.stringValue == "Rex")
        #expect(document["weight"]??.doubleValue == 4.5)
        #expect(document["good"]??.boolValue == true)
        #expect(document["tags"]??.arrayValue?.count == 2)
        #expect(document.keys.contains("vet"))
    }

    @Test func accessorsAndConversions() throws {
        let oid = ObjectId.generate()
        #expect(AnyBSON(oid) == .objectId(oid) && AnyBSON(oid).objectIdValue == oid)
        #expect(AnyBSON(Int32(5)) == .int32(5) && AnyBSON(5) == .int64(5))
        #expect(AnyBSON("x").stringValue == "x" && AnyBSON(true).boolValue == true)
        #expect(AnyBSON.int32(7).asInt64() == 7 && AnyBSON.double(2).asInt() == 2 && AnyBSON.double(2.5).asInt() == nil)
        #expect(AnyBSON.int64(3).asDouble() == 3 && AnyBSON.int64(3).asDecimal128() == Decimal128(3))
        #expect(AnyBSON.int64(9).value() == 9 as Int)
        #expect(AnyBSON.string("s").value() == "s" as String)
        #expect(AnyBSON.null.isNull && !AnyBSON.minKey.isNull)
        let nested: AnyBSON = ["a": ["b": 1]]
        #expect(nested.documentValue?["a"]??.documentValue?["b"] == 1)
        let date = Date(timeIntervalSince1970: 10)
        #expect(AnyBSON(date).dateValue == date && AnyBSON(Data([1])).binaryValue == Data([1]))
    }
}
