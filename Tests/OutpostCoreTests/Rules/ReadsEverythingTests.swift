@testable import OutpostCore
import Testing

/// The checks that let a subscription bootstrap send stored documents without reading them: an expression that is
/// true whatever the document holds, a query that matches every object, and a role that reads every document and
/// field. Each must be false whenever the answer could depend on a document.
@Suite struct ReadsEverythingTests {
    @Test(arguments: [
        ("true", true), (#""%%true""#, true), ("{}", true), (#"{"$and": [true, {}]}"#, true),
        (#"{"$or": [false, true]}"#, true), (#"{"$or": [{"ownerId": "%%user.id"}, "%%true"]}"#, true),
        ("false", false), (#""%%false""#, false), (#"{"ownerId": "%%user.id"}"#, false),
        (#"{"$and": [true, {"n": {"$gt": 1}}]}"#, false), (#"{"$or": [false, {"n": 1}]}"#, false),
        (#"{"$nor": [false]}"#, false), (#"{"%%user.id": "u1"}"#, false), (#"{"%%true": true}"#, false),
    ])
    func expressionIsAlwaysTrueOnlyWithoutReadingAnything(text: String, expected: Bool) throws {
        let expression = try RuleExpression.parse(jsonText: text)
        #expect(expression.isAlwaysTrue == expected, "\(text)")
        if expected {
            // What it claims holds for documents of any shape and any context.
            for document: Document in [[:], ["n": .int(5)], ["ownerId": .string("x")]] {
                #expect(expression.evaluate(document, context: RuleContext(userId: "u2")))
            }
        }
    }

    @Test(arguments: [
        ("TRUEPREDICATE", true), ("TRUEPREDICATE AND TRUEPREDICATE", true), ("FALSEPREDICATE OR TRUEPREDICATE", true),
        ("n > 1 OR TRUEPREDICATE", true), ("FALSEPREDICATE", false), ("n > 1", false), ("TRUEPREDICATE AND n > 1", false),
        ("NOT FALSEPREDICATE", false), ("_id != nil", false),
    ])
    func queryMatchesEverythingOnlyWithoutComparingValues(text: String, expected: Bool) throws {
        #expect(try QueryParser.parsePredicate(text).matchesEverything == expected, "\(text)")
    }

    @Test(arguments: [
        // Every document, every field.
        (#"{"name": "all", "document_filters": {"read": true, "write": true}, "read": true, "write": true}"#, true),
        (#"{"name": "all", "document_filters": {"read": {}, "write": false}, "read": true}"#, true),
        (#"{"name": "all", "document_filters": {"read": false, "write": true}, "write": true}"#, true),
        (#"{"name": "all", "read": true}"#, true),
        // A filter that reads the document, or no field permission at all.
        (#"{"name": "owner", "document_filters": {"read": {"ownerId": "%%user.id"}, "write": {"ownerId": "%%user.id"}}, "read": true, "write": true}"#, false),
        (#"{"name": "none", "document_filters": {"read": false, "write": false}, "read": true, "write": true}"#, false),
        (#"{"name": "blind", "document_filters": {"read": true, "write": true}}"#, false),
        (#"{"name": "blind", "document_filters": {"read": true, "write": true}, "read": false, "write": false}"#, false),
        // Field-level permissions: not every field is the same.
        (#"{"name": "f", "document_filters": {"read": true, "write": true}, "read": true, "fields": {"secret": {"read": false}}}"#, false),
        (#"{"name": "f", "document_filters": {"read": true, "write": true}, "read": true, "additional_fields": {"read": true}}"#, false),
    ])
    func roleReadsEverythingOnlyWhenNoDocumentOrFieldCanBeHidden(text: String, expected: Bool) throws {
        let role = try Role.parse(jsonText: text)
        #expect(role.readsEverything == expected, "\(text)")
        if expected {
            let context = RuleContext(userId: "u1")
            let document: Document = ["_id": .int(1), "ownerId": .string("u2"), "secret": .string("s")]
            #expect(role.canRead(document, context: context))
            #expect(role.canReadEveryField(document, context: context))
        }
    }

    @Test(arguments: [
        // Every insert, delete and field write, whatever the documents hold.
        (#"{"name": "all", "document_filters": {"read": true, "write": true}, "read": true, "write": true}"#, true),
        (#"{"name": "all", "document_filters": {"read": true, "write": {"$or": [false, true]}}, "write": true, "insert": true, "delete": true}"#, true),
        // A write filter that reads the document, or none that passes.
        (#"{"name": "owner", "document_filters": {"read": true, "write": {"ownerId": "%%user.id"}}, "read": true, "write": true}"#, false),
        (#"{"name": "ro", "document_filters": {"read": true, "write": false}, "read": true, "write": true}"#, false),
        // No top-level write, or only read.
        (#"{"name": "reader", "document_filters": {"read": true, "write": true}, "read": true}"#, false),
        // Insert or delete limited.
        (#"{"name": "noinsert", "document_filters": {"read": true, "write": true}, "write": true, "insert": false}"#, false),
        (#"{"name": "nodelete", "document_filters": {"read": true, "write": true}, "write": true, "delete": {"ownerId": "%%user.id"}}"#, false),
        // Field-level permissions.
        (#"{"name": "f", "document_filters": {"read": true, "write": true}, "write": true, "fields": {"secret": {"write": false}}}"#, false),
        (#"{"name": "f", "document_filters": {"read": true, "write": true}, "write": true, "additional_fields": {"write": true}}"#, false),
    ])
    func roleWritesEverythingOnlyWhenNoChangeCanBeDenied(text: String, expected: Bool) throws {
        let role = try Role.parse(jsonText: text)
        #expect(role.writesEverything == expected, "\(text)")
        if expected {
            // What it claims holds for documents of any shape.
            let context = RuleContext(userId: "u1")
            for document: Document in [["_id": .int(1)], ["_id": .int(2), "ownerId": .string("u2"), "secret": .string("s")]] {
                #expect(role.canInsert(document, context: context))
                #expect(role.canDelete(document, context: context))
                #expect(role.canWrite(document, context: context))
                #expect(role.canWrite(field: "secret", document: document, context: context))
            }
        }
    }
}
