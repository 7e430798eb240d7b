import Foundation
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Testing

/// The storage conformance suite against ``PostgresStorage``, one test per check, each in a new schema.
///
/// Needs PGHOST, PGPORT, PGUSER, PGPASSWORD and PGDATABASE. Without them the tests are disabled on a developer
/// machine, and fail when `CI` is set.
@Suite(.enabled(if: PostgresTestEnvironment.shouldRun, Comment(rawValue: PostgresTestEnvironment.disabledReason)))
struct PostgresStorageTests {
    @Test(arguments: StorageConformance.checks)
    func conformance(_ check: StorageConformance.Check) async throws {
        try await PostgresTestEnvironment.current().withStorage { storage in
            try await check.run(on: storage)
        }
    }

    /// Two storages with their own clients, like two server processes sharing one database.
    /// An error inside the statement that applies a transaction's writes fails the transaction. It comes with
    /// the statement's rows; before they were read, it was lost and the COMMIT of the aborted transaction
    /// reported success with nothing stored.
    @Test func anErrorWhileApplyingTheWritesFailsTheTransaction() async throws {
        try await PostgresTestEnvironment.current().withStorage { storage in
            try await storage.execute(unsafeSQL: "ALTER TABLE documents ADD CONSTRAINT refused CHECK (collection <> 'Refused')")
            await #expect(throws: StorageError.self) {
                try await storage.transaction(appId: "app") { tx in
                    try await tx.putDocument(collection: "Refused", ["_id": .int(1)])
                    try await tx.putDocument(collection: "Item", ["_id": .int(2)])
                    return try await tx.appendChangeset(ServerChangesetDraft(changes: []))
                }
            }
            #expect(try await storage.latestServerVersion(appId: "app") == 0)
            #expect(try await storage.document(appId: "app", collection: "Item", primaryKey: .int(2)) == nil)
            // The connection went back to its pool in a usable state.
            let version = try await storage.transaction(appId: "app") { tx in
                try await tx.putDocument(collection: "Item", ["_id": .int(2)])
                return try await tx.appendChangeset(ServerChangesetDraft(changes: []))
            }
            #expect(version == 1)
        }
    }

    /// Bodies were `jsonb` in databases made by earlier versions, which refuse U+0000 in a string: `prepare()`
    /// converts them to `text` in place, keeping what they hold.
    @Test func jsonbBodiesOfAnEarlierVersionAreConvertedToText() async throws {
        try await PostgresTestEnvironment.current().withStorage { storage in
            let before: Document = ["_id": .int(1), "name": .string("kept"), "list": .array([.int(1), .double(2.5)])]
            try await storage.transaction(appId: "app") { tx in
                try await tx.putDocument(collection: "Item", before)
                _ = try await tx.appendChangeset(ServerChangesetDraft(changes: [
                    DocumentChange(collection: "Item", primaryKey: .int(1), before: nil, after: before, changedFields: []),
                ]))
            }
            try await storage.setSetting(appId: "app", key: "k", value: .string("v"))
            // The columns as an earlier version made them, with what they hold.
            for (table, column) in [("users", "body"), ("sessions", "body"), ("api_keys", "body"), ("documents", "body"),
                                    ("history", "body"), ("settings", "value"), ("log", "body")] {
                try await storage.execute(unsafeSQL: "ALTER TABLE \(table) ALTER COLUMN \(column) TYPE jsonb USING \(column)::jsonb")
            }
            let withNul: Document = ["_id": .int(2), "name": .string("a\u{0}b")]

            try await storage.prepare()
            try await storage.transaction(appId: "app") { tx in try await tx.putDocument(collection: "Item", withNul) }
            #expect(try await storage.document(appId: "app", collection: "Item", primaryKey: .int(2)) == withNul)
            #expect(try await storage.document(appId: "app", collection: "Item", primaryKey: .int(1)) == before)
            let history = try await storage.changesets(appId: "app", after: 0, upTo: 1, limit: 1)
            #expect(history.first?.draft.changes.first?.after == before)
            #expect(try await storage.setting(appId: "app", key: "k") == .string("v"))
            // A second prepare finds nothing more to convert.
            try await storage.prepare()
            #expect(try await storage.document(appId: "app", collection: "Item", primaryKey: .int(2)) == withNul)
        }
    }

    @Test func twoProcessesAssignGapFreeVersionsAndHearEachOther() async throws {
        let environment = try PostgresTestEnvironment.current()
        let schema = PostgresTestEnvironment.uniqueSchemaName()
        let one = PostgresStorage(configuration: environment.configuration(schema: schema))
        let two = PostgresStorage(configuration: environment.configuration(schema: schema))
        do {
            try await Self.runTwoProcesses(one, two)
            try await one.dropSchema()
        } catch {
            try? await one.dropSchema()
            try? await one.close()
            try? await two.close()
            throw error
        }
        try await one.close()
        try await two.close()
    }

    static func runTwoProcesses(_ one: PostgresStorage, _ two: PostgresStorage) async throws {
        try await one.prepare()
        try await two.prepare()
        let heardByOne = try await one.changeNotifications()
        let heardByTwo = try await two.changeNotifications()

        let perStorage = 15
        let versions = try await withThrowingTaskGroup(of: (Int, Int64).self) { group in
            for i in 0..<(2 * perStorage) {
                let storage = i.isMultiple(of: 2) ? one : two
                group.addTask {
                    let version = try await storage.transaction(appId: "shared") { tx in
                        let seen = try await tx.latestServerVersion()
                        try await tx.putDocument(collection: "Item", ["_id": .int(Int64(i)), "seen": .int(seen)])
                        return try await tx.appendChangeset(ServerChangesetDraft(originFileIdent: Int64(i % 2), changes: []))
                    }
                    return (i % 2, version)
                }
            }
            return try await group.reduce(into: [(Int, Int64)]()) { $0.append($1) }
        }
        #expect(versions.map(\.1).sorted() == Array(1...Int64(2 * perStorage)))
        #expect(try await one.latestServerVersion(appId: "shared") == Int64(2 * perStorage))
        let history = try await two.changesets(appId: "shared", after: 0, upTo: 100, limit: 100)
        #expect(history.map(\.serverVersion) == Array(1...Int64(2 * perStorage)))

        // Each hears every commit, its own and the other's.
        let fromOne = Set(versions.filter { $0.0 == 0 }.map(\.1))
        let fromTwo = Set(versions.filter { $0.0 == 1 }.map(\.1))
        for stream in [heardByOne, heardByTwo] {
            let heard = try await Self.versions(in: stream, count: 2 * perStorage)
            #expect(heard.isSuperset(of: fromOne))
            #expect(heard.isSuperset(of: fromTwo))
        }
    }

    static func versions(in stream: AsyncStream<ChangeNotification>, count: Int) async throws -> Set<Int64> {
        try await withThrowingTaskGroup(of: Set<Int64>?.self) { group in
            group.addTask {
                var heard = Set<Int64>()
                for await note in stream where note.appId == "shared" {
                    heard.insert(note.serverVersion)
                    if heard.count == count { break }
                }
                return heard
            }
            group.addTask {
                try await Task.sleep(for: .seconds(10))
                return nil
            }
            let first = try await group.next()!
            group.cancelAll()
            return try #require(first, "every notification arrives within 10 s")
        }
    }
}

/// The storage-independent environment rule: on CI, PostgreSQL tests never skip.
@Suite struct PostgresTestEnvironmentTests {
    @Test func connectionURLs() throws {
        let configuration = try PostgresStorage.Configuration(url: "postgres://ann:s%40cret@db.example:6543/outpost?schema=tenant1")
        #expect(configuration.host == "db.example")
        #expect(configuration.port == 6543)
        #expect(configuration.username == "ann")
        #expect(configuration.password == "s@cret")
        #expect(configuration.database == "outpost")
        #expect(configuration.schema == "tenant1")
        let defaults = try PostgresStorage.Configuration(url: "postgresql://bob@localhost/db")
        #expect(defaults.port == 5432)
        #expect(defaults.password == nil)
        for bad in [
            "mysql://a:b@h/db", "postgres://a:b@/db", "postgres://h:5432/db", "postgres://a:b@h:5432/", "not a url",
            "postgres://a:b@h:99999/db", "postgres://a:b@h/db?bogus=1",
        ] {
            #expect(throws: StorageError.self, "\(bad)") { try PostgresStorage.Configuration(url: bad) }
            do { _ = try PostgresStorage(url: bad) } catch {
                #expect(StorageError.Code.invalidConfiguration ~= error, "\(bad)")
                #expect(!"\(error)".contains("b@"), "the message does not repeat the password")
            }
        }
    }

    @Test func ciRequiresPostgres() {
        if PostgresTestEnvironment.isCI {
            #expect(PostgresTestEnvironment.shouldRun)
            #expect(PostgresTestEnvironment.isConfigured, "CI is set but PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE are not")
        }
    }
}
