import Foundation
import OutpostCore
import OutpostServer

extension StorageConformance {
    /// A name that storage must keep verbatim: quotes, a statement separator, a comment, unicode.
    static let hostileName = "Robert'); DROP TABLE users;-- \"ü\" 🚀 \\ ' ;"

    /// An app id unique to one run, so checks can also share a database.
    static func appId(_ label: String = "app") -> String { "\(label)-\(UUID().uuidString.prefix(8))" }

    /// A date with millisecond precision, as Extended JSON keeps it.
    static func date(_ milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }

    static func user(_ appId: String, id: String, identity: String, provider: String = "local-userpass") -> StoredUser {
        StoredUser(
            appId: appId, id: id, provider: provider, identity: identity, passwordHash: "scrypt$abc",
            confirmed: false, confirmationToken: "tok-\(id)",
            data: ["email": .string(identity), "n": .int(3)],
            customData: ["score": .double(1.5), "when": .date(date(1_700_000_000_123)), "tags": .array([.string("a")])],
            createdAt: Date(timeIntervalSince1970: 1_700_000_000.123456))
    }

    /// A document holding every kind of value, nested documents and arrays, and links.
    static func everyValueDocument(id: Value) -> Document {
        [
            "_id": id,
            "null": .null,
            "true": .bool(true),
            "false": .bool(false),
            "int": .int(42),
            "intMin": .int(.min),
            "intMax": .int(.max),
            "zeroInt": .int(0),
            "double": .double(2.5),
            "integralDouble": .double(3.0),
            "negativeZero": .double(-0.0),
            "tinyDouble": .double(1.5e-300),
            "hugeDouble": .double(1.7976931348623157e308),
            "tenth": .double(0.1),
            "infinity": .double(.infinity),
            "string": .string("héllo \"wörld\" 🚀 \n\t' ; --"),
            "empty": .string(""),
            // U+0000 in a value and in a field name: PostgreSQL's `jsonb` refuses both, so bodies are `text`.
            "nul": .string("a\u{0}b"),
            "field\u{0}name": .int(1),
            "decimal": .decimal128(try! Decimal128(string: "1234567890.0987654321")),
            "negDecimal": .decimal128(try! Decimal128(string: "-0.001")),
            "objectId": .objectId(try! ObjectId(string: "65a1b2c3d4e5f60718293a4b")),
            "uuid": .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!),
            "date": .date(date(1_700_000_000_123)),
            "oldDate": .date(date(-86_400_000)),
            "data": .data(Data([0, 1, 2, 255, 254])),
            "emptyData": .data(Data()),
            "array": .array([.int(1), .double(1.5), .string("x"), .null, .array([.bool(false)])]),
            "emptyArray": .array([]),
            "nested": .document(["a": .int(1), "b": .document(["c": .array([.document(["d": .string("deep")])])])]),
            "emptyDocument": .document([:]),
            "link": .link(className: "Dog", primaryKey: .objectId(try! ObjectId(string: "65a1b2c3d4e5f60718293a4c"))),
            "intLink": .link(className: "Owner", primaryKey: .int(7)),
            "links": .array([.link(className: "Dog", primaryKey: .string("rex")), .null]),
        ]
    }

    static func draft(_ n: Int64, collection: String = "Item", audience: Int64? = nil) -> ServerChangesetDraft {
        ServerChangesetDraft(
            originFileIdent: n % 3, originClientVersion: n * 2, timestamp: Date(timeIntervalSince1970: 1_700_000_000.5 + Double(n)),
            audience: audience,
            changes: [
                DocumentChange(
                    collection: collection, primaryKey: .int(n), before: nil,
                    after: ["_id": .int(n), "v": .double(Double(n) + 0.5)], changedFields: ["_id", "v"]),
                DocumentChange(
                    collection: collection, primaryKey: .string("s\(n)"), before: ["_id": .string("s\(n)"), "x": .int(1)],
                    after: nil, changedFields: []),
            ])
    }
}
