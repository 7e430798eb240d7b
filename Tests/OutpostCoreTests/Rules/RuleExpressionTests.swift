import Foundation
import OutpostCore
import Testing

@Suite struct RuleExpressionTests {
    static let document = """
        {"_id": {"$oid": "650000000000000000000001"}, "ownerId": "u1", "age": 30, "score": 2.5,
         "price": {"$numberDecimal": "9.99"}, "big": {"$numberLong": "9007199254740993"},
         "tags": ["red", "blue"], "nums": [1, 5, 9], "address": {"city": "Oslo", "zip": "0150"},
         "items": [{"sku": "a", "qty": 2}, {"sku": "b", "qty": 0}], "nothing": null, "flag": true,
         "uuid": {"$uuid": "b1c11e54-e719-4275-b631-69ec3f2d616d"},
         "created": {"$date": "2024-01-02T03:04:05Z"}, "queryable_str_field": "foo"}
        """

    static func matches(_ expression: String, _ document: String = document, _ context: RuleContext = RuleContext())
        throws -> Bool
    {
        try RuleExpression.parse(jsonText: expression).evaluate(Document(extendedJSONText: document), context: context)
    }

    /// Every operator against one fixture document, MongoDB semantics.
    @Test(arguments: [
        // Constants and the empty expression.
        ("{}", true), ("true", true), ("false", false), ("\"%%true\"", true), ("\"%%false\"", false),
        // Implicit and explicit $eq, implicit AND of several fields.
        (#"{"ownerId": "u1"}"#, true), (#"{"ownerId": "u2"}"#, false), (#"{"ownerId": {"$eq": "u1"}}"#, true),
        (#"{"ownerId": "u1", "age": 30}"#, true), (#"{"ownerId": "u1", "age": 31}"#, false),
        (#"{"flag": true}"#, true), (#"{"flag": 1}"#, false),
        // Numbers across int, double and decimal128; different types never compare.
        (#"{"age": 30.0}"#, true), (#"{"age": {"$numberDecimal": "30"}}"#, true), (#"{"age": "30"}"#, false),
        (#"{"big": 9007199254740992.0}"#, false), (#"{"big": {"$gt": 9007199254740992.0}}"#, true),
        (#"{"score": {"$gt": 2, "$lt": 3}}"#, true), (#"{"score": {"$gt": 2.5}}"#, false),
        (#"{"score": {"$gte": 2.5}}"#, true), (#"{"score": {"$lte": {"$numberDecimal": "2.5"}}}"#, true),
        (#"{"price": {"$gt": 9}}"#, true), (#"{"price": {"$lt": 10}}"#, true), (#"{"price": {"$lt": 9.5}}"#, false),
        (#"{"price": {"$gte": {"$numberDecimal": "9.99"}}}"#, true),
        (#"{"age": {"$gt": "20"}}"#, false), (#"{"age": {"$lt": "40"}}"#, false), (#"{"age": {"$ne": "30"}}"#, true),
        (#"{"ownerId": {"$gt": "a"}}"#, true), (#"{"ownerId": {"$gt": "v"}}"#, false),
        // $ne, $in, $nin.
        (#"{"age": {"$ne": 30}}"#, false), (#"{"age": {"$ne": 31}}"#, true),
        (#"{"age": {"$in": [1, 30]}}"#, true), (#"{"age": {"$in": [1, 2]}}"#, false), (#"{"age": {"$in": []}}"#, false),
        (#"{"age": {"$nin": [1, 2]}}"#, true), (#"{"age": {"$nin": [30.0]}}"#, false), (#"{"age": {"$nin": []}}"#, true),
        // Arrays: any element, or the whole array in order.
        (#"{"tags": "red"}"#, true), (#"{"tags": "green"}"#, false), (#"{"tags": ["red", "blue"]}"#, true),
        (#"{"tags": ["blue", "red"]}"#, false), (#"{"tags": {"$in": ["green", "blue"]}}"#, true),
        (#"{"tags": {"$nin": ["green", "blue"]}}"#, false), (#"{"tags": {"$ne": "red"}}"#, false),
        (#"{"nums": {"$gt": 8}}"#, true), (#"{"nums": {"$gt": 9}}"#, false), (#"{"nums": {"$gt": 1, "$lt": 5}}"#, true),
        (#"{"nums": {"$gt": 4, "$lt": 6}}"#, true), (#"{"nums": {"$gt": 9, "$lt": 20}}"#, false), (#"{"tags.0": "red"}"#, true), (#"{"tags.1": "red"}"#, false),
        // Embedded documents and arrays of documents.
        (#"{"address.city": "Oslo"}"#, true), (#"{"address.city": "Bergen"}"#, false),
        (#"{"address": {"city": "Oslo", "zip": "0150"}}"#, true), (#"{"address": {"city": "Oslo"}}"#, false),
        (#"{"items.sku": "b"}"#, true), (#"{"items.qty": {"$gt": 1}}"#, true), (#"{"items.qty": {"$gt": 2}}"#, false),
        (#"{"items.0.sku": "a"}"#, true), (#"{"items.1.sku": "a"}"#, false), (#"{"address.city.x": null}"#, true),
        // Missing versus null, $exists.
        (#"{"missing": null}"#, true), (#"{"nothing": null}"#, true), (#"{"ownerId": null}"#, false),
        (#"{"missing": {"$exists": false}}"#, true), (#"{"missing": {"$exists": true}}"#, false),
        (#"{"nothing": {"$exists": true}}"#, true), (#"{"nothing": {"$exists": false}}"#, false),
        (#"{"age": {"$exists": 1}}"#, true), (#"{"address.zip": {"$exists": true}}"#, true),
        (#"{"address.street": {"$exists": true}}"#, false), (#"{"items.qty": {"$exists": true}}"#, true),
        (#"{"missing": {"$ne": "x"}}"#, true), (#"{"missing": {"$nin": ["x"]}}"#, true),
        (#"{"missing": {"$in": [null]}}"#, true), (#"{"nothing": {"$ne": null}}"#, false),
        (#"{"age": {"$ne": null}}"#, true), (#"{"missing": {"$gt": 1}}"#, false), (#"{"missing": {"$lt": 1}}"#, false),
        (#"{"nothing": {"$gte": null}}"#, true), (#"{"missing": {"$lte": null}}"#, true),
        (#"{"nothing": {"$gt": null}}"#, false), (#"{"age": {"$gte": null}}"#, false),
        // $not.
        (#"{"age": {"$not": {"$gt": 40}}}"#, true), (#"{"age": {"$not": {"$gt": 20}}}"#, false),
        (#"{"missing": {"$not": {"$gt": 1}}}"#, true), (#"{"age": {"$not": {"$gt": 20, "$lt": 25}}}"#, true),
        (#"{"tags": {"$not": {"$in": ["red"]}}}"#, false),
        // $and, $or, $nor.
        (#"{"$and": [{"age": 30}, {"flag": true}]}"#, true), (#"{"$and": [{"age": 30}, {"flag": false}]}"#, false),
        (#"{"$or": [{"age": 31}, {"flag": true}]}"#, true), (#"{"$or": [{"age": 31}, {"flag": false}]}"#, false),
        (#"{"$nor": [{"age": 31}, {"flag": false}]}"#, true), (#"{"$nor": [{"age": 30}, {"flag": false}]}"#, false),
        (#"{"$or": [{"$and": [{"age": 30}, {"tags": "red"}]}, false], "ownerId": "u1"}"#, true),
        (#"{"$and": [true, "%%true"]}"#, true), (#"{"$or": [false, "%%false"]}"#, false),
        // Extended JSON literals: ObjectId, UUID, date, binary.
        (#"{"_id": {"$oid": "650000000000000000000001"}}"#, true),
        (#"{"_id": {"$oid": "650000000000000000000002"}}"#, false), (#"{"_id": "650000000000000000000001"}"#, false),
        (#"{"_id": {"$gt": {"$oid": "650000000000000000000000"}}}"#, true),
        (#"{"uuid": {"$uuid": "b1c11e54-e719-4275-b631-69ec3f2d616d"}}"#, true),
        (#"{"uuid": {"$uuid": "b1c11e54-e719-4275-b631-69ec3f2d616e"}}"#, false),
        (#"{"created": {"$date": "2024-01-02T03:04:05Z"}}"#, true),
        (#"{"created": {"$date": {"$numberLong": "1704164645000"}}}"#, true),
        (#"{"created": {"$gt": {"$date": "2024-01-01T00:00:00Z"}, "$lt": {"$date": "2025-01-01T00:00:00Z"}}}"#, true),
        (#"{"created": {"$lt": {"$date": "2024-01-01T00:00:00Z"}}}"#, false),
        (#"{"created": {"$in": [{"$date": "2024-01-02T03:04:05Z"}]}}"#, true),
        // The core compensating-write test's write filter.
        (#"{"queryable_str_field": {"$in": ["foo", "bar"]}}"#, true),
    ])
    func operators(expression: String, expected: Bool) throws {
        #expect(try Self.matches(expression) == expected, "\(expression)")
    }

    @Test func coreCompensatingWriteFilter() throws {
        let filter = try RuleExpression.parse(jsonText: #"{"queryable_str_field": {"$in": ["foo", "bar"]}}"#)
        for (value, expected) in [("foo", true), ("bar", true), ("baz", false), ("bizz", false)] {
            let document: Document = ["_id": .objectId(ObjectId()), "queryable_str_field": .string(value)]
            #expect(filter.evaluate(document, context: RuleContext()) == expected)
        }
        #expect(filter.evaluate([:], context: RuleContext()) == false)
        #expect(filter.referencedFields == ["queryable_str_field"])
        #expect(filter.isSyncCompatible)
    }

    @Test func descriptionAndLiterals() throws {
        let filter = try RuleExpression.parse(jsonText: #"{ "b": {"$in": [1, 2]}, "a": "%%user.id" }"#)
        #expect(filter.description == #"{"a":"%%user.id","b":{"$in":[1,2]}}"#)
        #expect(filter.literalValue == nil)
        #expect(try RuleExpression.parse(jsonText: "true").literalValue == true)
        #expect(try RuleExpression.parse(jsonText: "\"%%false\"").literalValue == false)
        #expect(try RuleExpression.parse(jsonText: "{}").literalValue == nil)
        #expect(try RuleExpression.parse(jsonText: "{}").evaluate(context: RuleContext()))
        #expect(RuleExpression.alwaysTrue.evaluate([:], context: RuleContext()))
        #expect(!RuleExpression.alwaysFalse.evaluate(context: RuleContext()))
    }

    /// `%%root` reads the document being evaluated (also when the context carries another root); expressions
    /// without it evaluate against the document with the context as given.
    @Test func rootReadsTheEvaluatedDocument() throws {
        let filter = try RuleExpression.parse(jsonText: #"{"%%root.owner": "%%user.id"}"#)
        let context = RuleContext(userId: "u1", root: ["owner": .string("someone else")])
        #expect(filter.evaluate(["owner": .string("u1")], context: context))
        #expect(!filter.evaluate(["owner": .string("u2")], context: context))
        let plain = try RuleExpression.parse(jsonText: #"{"owner": "%%user.id"}"#)
        #expect(plain.evaluate(["owner": .string("u1")], context: context))
        #expect(!plain.evaluate(["owner": .string("u2")], context: context))
    }

    @Test func referencedFields() throws {
        let filter = try RuleExpression.parse(jsonText: """
            {"ownerId": "%%user.id", "address.city": "Oslo", "$or": [{"a": 1}, {"%%user.id": "x"}],
             "$nor": [{"b": {"$in": ["%%root.c", 2]}}], "%%user.custom_data.isAdmin": true}
            """)
        #expect(filter.referencedFields == ["ownerId", "address", "a", "b", "c"])
        #expect(!filter.isDocumentIndependent)
        #expect(try RuleExpression.parse(jsonText: #"{"%%user.custom_data.isAdmin": true}"#).isDocumentIndependent)
        #expect(try RuleExpression.parse(jsonText: #"{"%%partition": "%%user.id"}"#).referencedFields.isEmpty)
        #expect(try RuleExpression.parse(jsonText: "true").referencedFields.isEmpty)
    }
}
