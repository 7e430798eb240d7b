import Foundation
import OutpostCore
import Testing

@Suite struct RuleContextTests {
    static let context = RuleContext(
        userId: "u1",
        userData: ["email": .string("ada@example.com"), "name": .string("Ada")],
        customData: [
            "team": .string("blue"), "isAdmin": .bool(true), "teams": .array([.string("blue"), .string("green")]),
            "manages": .array([.string("bob@example.com"), .string("cy@example.com")]),
            "profile": .document(["level": .int(3)]),
        ],
        partition: .string("u1"),
        values: ["region": .string("eu")],
        environment: ["tag": .string("production")]
    )

    private func evaluate(_ text: String, _ context: RuleContext = context) throws -> Bool {
        try RuleExpression.parse(jsonText: text).evaluate(context: context)
    }

    private func matches(_ text: String, _ document: Document, _ context: RuleContext = context) throws -> Bool {
        try RuleExpression.parse(jsonText: text).evaluate(document, context: context)
    }

    @Test func resolve() {
        let context = Self.context
        #expect(context.resolve("%%user.id") == .string("u1"))
        #expect(context.resolve("%%user.data.email") == .string("ada@example.com"))
        #expect(context.resolve("%%user.custom_data.team") == .string("blue"))
        #expect(context.resolve("%%user.custom_data.profile.level") == .int(3))
        #expect(context.resolve("%%user.custom_data") == .document(context.customData))
        #expect(context.resolve("%%user") == .document([
            "id": .string("u1"), "data": .document(context.userData), "custom_data": .document(context.customData),
        ]))
        #expect(context.resolve("%%partition") == .string("u1"))
        #expect(context.resolve("%%true") == .bool(true))
        #expect(context.resolve("%%false") == .bool(false))
        #expect(context.resolve("%%values.region") == .string("eu"))
        #expect(context.resolve("%%environment.tag") == .string("production"))
        #expect(context.resolve("%%user.custom_data.missing") == nil)
        #expect(context.resolve("%%root.x") == nil)
        #expect(context.resolve("%%user.name") == nil)
        #expect(context.resolve("%%nope") == nil)
        #expect(context.resolve("user.id") == nil)
        #expect(RuleContext().resolve("%%user.id") == nil)
        #expect(RuleContext().resolve("%%partition") == nil)
        #expect(RuleContext(partition: .null).resolve("%%partition") == .null)
    }

    @Test func userExpansions() throws {
        #expect(try matches(#"{"ownerId": "%%user.id"}"#, ["ownerId": .string("u1")]))
        #expect(try !matches(#"{"ownerId": "%%user.id"}"#, ["ownerId": .string("u2")]))
        #expect(try !matches(#"{"ownerId": "%%user.id"}"#, ["ownerId": .string("u1")], RuleContext()))
        #expect(try matches(#"{"members": "%%user.id"}"#, ["members": .array([.string("u0"), .string("u1")])]))
        #expect(try evaluate(#"{"%%user.custom_data.isAdmin": true}"#))
        #expect(try !evaluate(#"{"%%user.custom_data.isAdmin": true}"#, RuleContext(customData: ["isAdmin": .bool(false)])))
        #expect(try !evaluate(#"{"%%user.custom_data.isAdmin": true}"#, RuleContext()))
        #expect(try evaluate(#"{"%%user.data.email": {"$exists": true}}"#))
        #expect(try evaluate(#"{"%%user.data.phone": {"$exists": false}}"#))
        #expect(try evaluate(#"{"%%user.data.email": {"%exists": true}}"#))
        #expect(try evaluate(#"{"%%user.custom_data.profile.level": {"$gte": 3}}"#))
        #expect(try evaluate(#"{"%%user.custom_data.teams": "green"}"#))
        #expect(try evaluate(#"{"%%values.region": "eu", "%%environment.tag": {"$ne": "development"}}"#))
        #expect(try matches(#"{"team": "%%user.custom_data.team"}"#, ["team": .string("blue")]))
        #expect(try matches(#"{"team": {"$in": ["red", "%%user.custom_data.team"]}}"#, ["team": .string("blue")]))
        #expect(try matches(#"{"team": {"$in": "%%user.custom_data.teams"}}"#, ["team": .string("green")]))
        #expect(try !matches(#"{"team": {"$nin": "%%user.custom_data.teams"}}"#, ["team": .string("green")]))
        #expect(try matches(#"{"team": {"%in": "%%user.custom_data.teams"}}"#, ["team": .string("blue")]))
        // App Services: an expansion that stands for an array matches a field equal to any of its elements.
        #expect(try matches(#"{"email": "%%user.custom_data.manages"}"#, ["email": .string("cy@example.com")]))
        #expect(try !matches(#"{"email": "%%user.custom_data.manages"}"#, ["email": .string("ada@example.com")]))
    }

    /// A missing expansion value matches nothing, not even a missing field or `$ne`.
    @Test func missingExpansionsFailClosed() throws {
        #expect(try !matches(#"{"team": "%%user.custom_data.missing"}"#, [:]))
        #expect(try !matches(#"{"team": {"$ne": "%%user.custom_data.missing"}}"#, ["team": .string("x")]))
        #expect(try !matches(#"{"team": {"$in": "%%user.custom_data.missing"}}"#, [:]))
        #expect(try !matches(#"{"ownerId": "%%user.id"}"#, [:], RuleContext()))
        #expect(try matches(#"{"team": {"$in": ["%%user.custom_data.missing", "x"]}}"#, ["team": .string("x")]))
    }

    @Test func partition() throws {
        let permission = try RuleExpression.parse(jsonText: #"{"%%partition": "%%user.id"}"#)
        #expect(permission.isDocumentIndependent)
        #expect(permission.evaluate(context: RuleContext(userId: "u1", partition: .string("u1"))))
        #expect(!permission.evaluate(context: RuleContext(userId: "u1", partition: .string("u2"))))
        #expect(!permission.evaluate(context: RuleContext(userId: "u1")))
        #expect(!permission.evaluate(context: RuleContext(partition: .string("u1"))))
        let oid = try ObjectId(string: "1234567890ab1234567890ab")
        let byId = try RuleExpression.parse(jsonText: #"{"%%partition": {"$oid": "1234567890ab1234567890ab"}}"#)
        #expect(byId.evaluate(context: RuleContext(partition: .objectId(oid))))
        #expect(try evaluate(#"{"%%partition": {"$in": ["u0", "u1"]}}"#))
        #expect(try evaluate(#"{"%%partition": null}"#, RuleContext(partition: .null)))
        #expect(try evaluate(#"{"%%partition": {"$exists": false}}"#, RuleContext()))
    }

    @Test func rootAndPrevRoot() throws {
        let filter = try RuleExpression.parse(jsonText: #"{"%%root.ownerId": "%%user.id"}"#)
        #expect(!filter.isSyncCompatible)
        #expect(!filter.isDocumentIndependent)
        #expect(filter.referencedFields == ["ownerId"])
        #expect(filter.evaluate(["ownerId": .string("u1")], context: Self.context))
        #expect(!filter.evaluate(["ownerId": .string("u2")], context: Self.context))
        #expect(!filter.evaluate(context: Self.context))
        var withRoot = Self.context
        withRoot.root = ["ownerId": .string("u1")]
        #expect(filter.evaluate(context: withRoot))
        var withPrevious = Self.context
        withPrevious.prevRoot = ["status": .string("draft")]
        let transition = try RuleExpression.parse(jsonText: #"{"%%prevRoot.status": "draft", "status": "published"}"#)
        #expect(transition.evaluate(["status": .string("published")], context: withPrevious))
        #expect(!transition.evaluate(["status": .string("published")], context: Self.context))
    }
}
