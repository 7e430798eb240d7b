import Foundation
import OutpostCore
import OutpostServer

extension StorageConformance {
    /// Checks of ``DocumentStorage/documents(appId:collection:matching:after:limit:)``.
    public static var queryChecks: [Check] {
        [
            .documentStorage(
                "queries: a query reads exactly the documents it matches, for every value type, page by page"
            ) { storage in
                let app = appId()
                try await storage.createFieldIndexes(["f", "g"])
                try await storage.createFieldIndexes(["f", "g"])  // a second time changes nothing
                let documents = queryFixture()
                let oid = try ObjectId(string: "65a1b2c3d4e5f60718293a4b")
                try await storage.transaction(appId: app) { tx in
                    for document in documents { try await tx.putDocument(collection: "Q", document) }
                    // The same values elsewhere: another collection and another app are never read.
                    for document in documents.prefix(6) { try await tx.putDocument(collection: "Other", document) }
                }
                try await storage.transaction(appId: appId("other")) { tx in
                    for document in documents { try await tx.putDocument(collection: "Q", document) }
                }
                // MongoDB equality itself, on a few queries written out by hand.
                let byHand: [(DocumentQuery, [Value])] = [
                    (query("f", .int(5)), [.int(3), .int(4), .int(6), .int(7), .int(9), .objectId(oid)]),
                    (query("f", .string("a")), [.int(1), .int(7), .int(10), .string("every")]),
                    (query("f", .null), [.int(13), .int(14)]),
                    (query("_id", .int(2)), [.int(2)]),
                    (DocumentQuery([.init(field: "f", values: [])]), []),
                ]
                for (query, ids) in byHand {
                    let found = try await read(storage, app, query, pageSize: 1000)
                    try Expect.equal(Set(found.compactMap { $0["_id"] }), Set(ids), "documents matching \(query)")
                }
                for query in queryFixtureQueries() {
                    let expected = documents.filter(query.matches)
                        .sorted { key($0).utf8.lexicographicallyPrecedes(key($1).utf8) }
                    for pageSize in [1000, 2, 1] {
                        let found = try await read(storage, app, query, pageSize: pageSize)
                        try Expect.equal(found, expected, "documents matching \(query) in pages of \(pageSize)")
                    }
                }
            },
            .documentStorage("queries: an indexed field follows updates and deletes") { storage in
                let app = appId()
                try await storage.createFieldIndexes(["owner"])
                try await storage.transaction(appId: app) { tx in
                    for i in 0..<50 {
                        try await tx.putDocument(collection: "Item", ["_id": .int(Int64(i)), "owner": .string(i < 3 ? "ann" : "bob")])
                    }
                }
                try await storage.transaction(appId: app) { tx in
                    try await tx.putDocument(collection: "Item", ["_id": .int(1), "owner": .string("bob")])
                    try await tx.deleteDocument(collection: "Item", primaryKey: .int(2))
                    try await tx.putDocument(collection: "Item", ["_id": .int(60), "owner": .string("ann")])
                }
                let ann = try await read(storage, app, query("owner", .string("ann")), pageSize: 10, collection: "Item")
                try Expect.equal(ann.compactMap { $0["_id"] }, [.int(0), .int(60)], "ann's documents")
                let bob = try await read(storage, app, query("owner", .string("bob")), pageSize: 10, collection: "Item")
                try Expect.equal(bob.count, 48, "bob's documents")
                // A value moving into and out of an array (which the lookup finds through another index on SQLite).
                try await storage.transaction(appId: app) { tx in
                    try await tx.putDocument(collection: "Item", ["_id": .int(7), "owner": .array([.string("carl"), .string("ann")])])
                }
                let shared = try await read(storage, app, query("owner", .string("ann")), pageSize: 1, collection: "Item")
                try Expect.equal(shared.compactMap { $0["_id"] }, [.int(0), .int(60), .int(7)], "ann's documents and the shared one (in key text order)")
                try await storage.transaction(appId: app) { tx in
                    try await tx.putDocument(collection: "Item", ["_id": .int(7), "owner": .string("bob")])
                }
                let back = try await read(storage, app, query("owner", .string("ann")), pageSize: 10, collection: "Item")
                try Expect.equal(back.compactMap { $0["_id"] }, [.int(0), .int(60)], "ann's documents once the array is gone")
            },
        ]
    }

    static func query(_ field: String, _ values: Value...) -> DocumentQuery {
        DocumentQuery([DocumentQuery.Condition(field: field, values: values)])
    }

    /// Reads every match of a query a page at a time, checking that only the last page is short.
    static func read(
        _ storage: any DocumentStorage, _ app: String, _ query: DocumentQuery, pageSize: Int, collection: String = "Q"
    ) async throws -> [Document] {
        var found: [Document] = []
        var after: String?
        while true {
            let page = try await storage.documents(appId: app, collection: collection, matching: query, after: after, limit: pageSize)
            try Expect.that(page.count <= pageSize, "a page of \(pageSize) holds \(page.count)")
            found += page.map(\.document)
            guard page.count == pageSize, let last = page.last else { return found }
            after = last.key
        }
    }

    /// The `pk_key` text of a document (byte order is page order).
    private static func key(_ document: Document) -> String { PrimaryKeyText.make(document["_id"]!) }

    /// Values of every type in the indexed field `f`, several of which MongoDB equality treats as equal.
    static func queryFixture() -> [Document] {
        let oid = try! ObjectId(string: "65a1b2c3d4e5f60718293a4b")
        let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        let values: [Value?] = [
            .string("a"),  // 1
            .string(#"{"$oid":"65a1b2c3d4e5f60718293a4b"}"#),  // 2: a string that reads like an ObjectId
            .int(5),  // 3
            .double(5.0),  // 4
            .double(5.5),  // 5
            .decimal128(try! Decimal128(string: "5")),  // 6
            .array([.int(5), .string("a")]),  // 7
            .array([.string("b")]),  // 8
            .link(className: "T", primaryKey: .int(5)),  // 9
            .link(className: "T", primaryKey: .string("a")),  // 10
            .objectId(oid),  // 11
            .bool(true),  // 12
            .null,  // 13
            nil,  // 14: missing
            .int(1),  // 15
            .date(date(1_700_000_000_123)),  // 16
            .uuid(uuid),  // 17
            .string("[x"),  // 18: a string that sorts among arrays' texts
            .string("a\u{0}b"),  // 19
            .document(["a": .int(5)]),  // 20
            .int(-5),  // 21
        ]
        var documents = values.enumerated().map { i, value -> Document in
            var document: Document = ["_id": .int(Int64(i + 1)), "g": .int(Int64(i % 3)), "we ird": .int(Int64(i % 2))]
            if let value { document["f"] = value }
            return document
        }
        var every = everyValueDocument(id: .string("every"))
        every["f"] = .string("a")
        documents.append(every)
        documents.append(["_id": .objectId(oid), "f": .int(5)])
        documents.append(["_id": .uuid(uuid), "f": .string("b")])
        documents.append(["_id": .double(2.5), "f": .string("c")])
        return documents
    }

    static func queryFixtureQueries() -> [DocumentQuery] {
        let oid = try! ObjectId(string: "65a1b2c3d4e5f60718293a4b")
        let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        return [
            .all,
            query("f", .string("a")), query("f", .string(#"{"$oid":"65a1b2c3d4e5f60718293a4b"}"#)),
            query("f", .int(5)), query("f", .double(5.0)), query("f", .double(5.5)), query("f", .float(5)),
            query("f", .decimal128(try! Decimal128(string: "5.0"))), query("f", .int(-5)),
            query("f", .objectId(oid)), query("f", .uuid(uuid)), query("f", .date(date(1_700_000_000_123))),
            query("f", .bool(true)), query("f", .int(1)), query("f", .null), query("f", .string("[x")),
            query("f", .string("a\u{0}b")), query("f", .array([.int(5), .string("a")])),
            query("f", .document(["a": .int(5)])), query("f", .string("a"), .int(5), .null),
            query("_id", .int(3)), query("_id", .double(3)), query("_id", .objectId(oid), .string("every")),
            query("_id", .uuid(uuid)), query("_id", .double(2.5)), query("_id", .string("missing")),
            DocumentQuery([.init(field: "f", values: [.string("a")]), .init(field: "g", values: [.int(0)])]),
            query("g", .int(1)), query("we ird", .int(1)), query("nested", .document(["a": .int(1)])),
            // Long `$in` lists, more than a compound SELECT or an OR may hold in SQLite.
            DocumentQuery([.init(field: "f", values: (-600...600).map { .int(Int64($0)) } + [.string("a")])]),
            DocumentQuery([.init(field: "_id", values: (0...1200).map { .int(Int64($0)) })]),
        ]
    }
}
