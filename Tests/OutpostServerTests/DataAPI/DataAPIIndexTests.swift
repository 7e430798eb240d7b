import Foundation
import OutpostCore
@testable import OutpostServer
import OutpostServerTesting
import Synchronization
import Testing

/// Data API reads look documents up in the database's indexes: the plans name the indexes, and a user's read among
/// another user's many documents reads about the user's own.
@Suite struct DataAPIIndexTests {
    /// Counts the documents storage hands the Data API, and every read of a whole collection.
    final class CountingStorage: ForwardingStorage, @unchecked Sendable {  // the counters are a Mutex
        let counts = Mutex((documents: 0, wholeCollections: 0))

        override func documents(
            appId: String, collection: String, matching query: DocumentQuery, after: String?, limit: Int
        ) async throws -> [StoredDocument] {
            let page = try await base.documents(appId: appId, collection: collection, matching: query, after: after, limit: limit)
            counts.withLock { $0.documents += page.count }
            return page
        }

        override func documents(appId: String, collection: String) async throws -> [Document] {
            let documents = try await base.documents(appId: appId, collection: collection)
            counts.withLock {
                $0.documents += documents.count
                $0.wholeCollections += 1
            }
            return documents
        }

        func reset() { counts.withLock { $0 = (0, 0) } }
    }

    static let otherDocuments = 3_000

    /// Another user's 3,000 documents and the user's 5; each read of the user's documents gets at most those 5 from
    /// storage (the role's read filter and the request's filter are looked up), never the whole collection.
    func readsTouchOnlyTheUsersDocuments(_ base: any ServerStorage) async throws {
        let storage = CountingStorage(base)
        var app = AppDefinition.development(appId: "index-app")
        app.rules["Item"] = .object(["roles": .array([ownerReadWriteRole])])
        app.dataAPI.enabled = true
        try await withTestServer(configuration: app, storage: storage) { server in
            let user = try await server.newUser()
            try await storage.transaction(appId: server.appId) { tx in
                for i in 0..<Self.otherDocuments {
                    try await tx.putDocument(
                        collection: "Item", ["_id": .int(Int64(i)), "ownerId": .string("someone-else"), "n": .int(Int64(i))])
                }
                for i in 0..<5 {
                    try await tx.putDocument(
                        collection: "Item", ["_id": .string("mine-\(i)"), "ownerId": .string(user.id), "n": .int(Int64(i))])
                }
            }
            let reads: [(String, String, (JSONValue) -> Bool)] = [
                ("findOne", #"{"filter": {"_id": "mine-3"}}"#, { $0["document"]?["n"] == .int(3) }),
                ("findOne", #"{"filter": {"_id": 7}}"#, { $0["document"] == .null }),
                ("findOne", #"{"filter": {"n": 2}}"#, { $0["document"]?["_id"] == .string("mine-2") }),
                ("find", #"{"sort": {"n": -1}, "limit": 2}"#, {
                    $0["documents"]?.items.compactMap { $0["_id"]?.stringValue } == ["mine-4", "mine-3"]
                }),
                ("count", "{}", { $0["count"] == .int(5) }),
                ("updateMany", #"{"filter": {}, "update": {"$inc": {"n": 10}}}"#, { $0["matchedCount"] == .int(5) }),
                ("deleteMany", #"{"filter": {"n": 10}}"#, { $0["deletedCount"] == .int(1) }),
            ]
            for (action, body, expected) in reads {
                storage.reset()
                let result = try await server.ok("Item", action, body, as: user)
                #expect(expected(result), "\(action) \(body): \(result.text)")
                let counts = storage.counts.withLock { $0 }
                #expect(counts.wholeCollections == 0, "\(action) \(body) read the whole collection")
                #expect(counts.documents <= 5, "\(action) \(body) read \(counts.documents) documents")
            }
        }
    }

    @Test func sqliteReadsTouchOnlyTheUsersDocuments() async throws {
        try await TemporaryDirectory.with("index") { directory in
            let storage = try SQLiteStorage(path: directory.path("server.sqlite"))
            do {
                try await readsTouchOnlyTheUsersDocuments(storage)
                try await storage.close()
            } catch {
                try? await storage.close()
                throw error
            }
        }
    }

    @Test(.enabled(if: PostgresTestEnvironment.shouldRun, Comment(rawValue: PostgresTestEnvironment.disabledReason)))
    func postgresReadsTouchOnlyTheUsersDocuments() async throws {
        try await PostgresTestEnvironment.current().withStorage { storage in
            try await readsTouchOnlyTheUsersDocuments(storage)
        }
    }

    static let ownerQuery = DocumentQuery([.init(field: "ownerId", values: [.string("u1")])])
    static let idQuery = DocumentQuery([.init(field: "_id", values: [.objectId(try! ObjectId(string: "65a1b2c3d4e5f60718293a4b"))])])

    /// Fills a collection with a few owners' documents, after the field index exists.
    func fill(_ storage: any ServerStorage) async throws {
        try await storage.createFieldIndexes(["ownerId"])
        try await storage.transaction(appId: "app") { tx in
            for i in 0..<2_000 {
                try await tx.putDocument(collection: "Item", ["_id": .objectId(.generate()), "ownerId": .string("u\(i % 40)")])
            }
        }
    }

    @Test func sqlitePlansUseTheIndexes() async throws {
        try await TemporaryDirectory.with("plan") { directory in
            let storage = try SQLiteStorage(path: directory.path("server.sqlite"))
            try await storage.prepare()
            try await fill(storage)
            let owner = try await storage.matchingQueryPlan(appId: "app", collection: "Item", Self.ownerQuery).joined(separator: "\n")
            #expect(owner.contains("USING INDEX \(DocumentQueryProbe.indexName("ownerId"))"), "\(owner)")
            #expect(!owner.contains("SCAN documents"), "\(owner)")
            // No part of the lookup (the ranges for arrays and links included) walks the primary key after the cursor.
            #expect(!owner.contains("sqlite_autoindex_documents_1 (app=? AND collection=? AND pk_key>?)"), "\(owner)")
            // Arrays and links are read from their partial index, in key order: nothing is sorted.
            #expect(owner.contains("USING INDEX \(DocumentQueryProbe.indexName("ownerId"))_al"), "\(owner)")
            #expect(!owner.contains("TEMP B-TREE"), "\(owner)")
            let id = try await storage.matchingQueryPlan(appId: "app", collection: "Item", Self.idQuery).joined(separator: "\n")
            #expect(id.contains("SEARCH documents USING INDEX sqlite_autoindex_documents_1"), "\(id)")
            #expect(!id.contains("SCAN documents"), "\(id)")
            try await storage.close()
        }
    }

    @Test(.enabled(if: PostgresTestEnvironment.shouldRun, Comment(rawValue: PostgresTestEnvironment.disabledReason)))
    func postgresPlansUseTheIndexes() async throws {
        try await PostgresTestEnvironment.current().withStorage { storage in
            try await fill(storage)
            // Judged on the table's statistics as autovacuum (or the storage's own refresh after the fill, which runs
            // in the background) leaves them: with those of the empty table every index costs the same.
            try await storage.refreshPlannerStatistics()
            let owner = try await storage.matchingQueryPlan(appId: "app", collection: "Item", Self.ownerQuery).joined(separator: "\n")
            #expect(owner.contains("Index") && owner.contains(DocumentQueryProbe.indexName("ownerId")), "\(owner)")
            #expect(!owner.contains("Seq Scan"), "\(owner)")
            let id = try await storage.matchingQueryPlan(appId: "app", collection: "Item", Self.idQuery).joined(separator: "\n")
            #expect(id.contains("documents_pkey"), "\(id)")
            // Not an index that merely ends with `pk_key` (it has to walk the collection's entries).
            #expect(!id.contains(DocumentQueryProbe.indexName("ownerId")), "\(id)")
            #expect(!id.contains("Seq Scan"), "\(id)")
        }
    }
}
