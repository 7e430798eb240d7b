import Foundation
import OutpostCore
@testable import OutpostServer
import OutpostServerTesting
import Synchronization
import Testing

/// Development mode records the schema uploads write (`SyncEngine.checkSchema`). The recorded schema only grows,
/// so an upload that writes only recorded fields neither reads nor writes it.
@Suite struct RecordedSchemaTests {
    /// Counts reads and writes of the `schema` setting.
    final class SettingCounter: ForwardingStorage, @unchecked Sendable {
        let reads = Atomic<Int>(0)
        let writes = Atomic<Int>(0)

        override func setting(appId: String, key: String) async throws -> Value? {
            if key == "schema" { reads.add(1, ordering: .relaxed) }
            return try await base.setting(appId: appId, key: key)
        }

        override func setSetting(appId: String, key: String, value: Value) async throws {
            if key == "schema" { writes.add(1, ordering: .relaxed) }
            try await base.setSetting(appId: appId, key: key, value: value)
        }

        override func updateSetting(
            appId: String, key: String, _ update: @escaping @Sendable (Value?) throws -> Value?
        ) async throws -> Value? {
            try await base.updateSetting(appId: appId, key: key) { [self] current in
                if key == "schema" { reads.add(1, ordering: .relaxed) }
                let new = try update(current)
                if key == "schema", new != nil { writes.add(1, ordering: .relaxed) }
                return new
            }
        }
    }

    static let user = SeedScenarioTests.user

    @Test func uploadsOfRecordedFieldsLeaveTheStoredSchemaAlone() async throws {
        let storage = SettingCounter(MemoryStorage())
        try await storage.prepare()
        try await withEngine(storage: storage, settings: [try seedSettings()]) { engine in
            let client = InMemorySyncConnection(handler: engine, user: Self.user)
            _ = try await client.bindNewFile()
            _ = try await client.subscribe(version: 1, ["Item": "complexity <= 4"])
            func item(_ name: String) -> Document {
                ["ownerId": .string(Self.user.userId), "itemName": .string(name), "complexity": .int(1)]
            }
            func upload(_ version: Int64, _ instructions: [SyncInstruction]) async throws {
                try await client.upload(clientVersion: version, instructions)
                _ = try await client.next { if case .download(let d) = $0 { d.uploadAck == version } else { false } }
            }

            try await upload(1, [.create(className: "Item", primaryKey: .objectId(.generate()), fields: item("a"))])
            let (readsAfterFirst, writesAfterFirst) = (storage.reads.load(ordering: .relaxed), storage.writes.load(ordering: .relaxed))
            #expect(writesAfterFirst == 1, "the first upload records the schema")

            for version in Int64(2)...6 {
                try await upload(version, [.create(className: "Item", primaryKey: .objectId(.generate()), fields: item("b\(version)"))])
            }
            #expect(storage.reads.load(ordering: .relaxed) == readsAfterFirst, "known fields: the schema is not read")
            #expect(storage.writes.load(ordering: .relaxed) == writesAfterFirst)

            // A new field grows the stored schema, which keeps the fields recorded before.
            var grown = item("c")
            grown["color"] = .string("red")
            try await upload(7, [.create(className: "Item", primaryKey: .objectId(.generate()), fields: grown)])
            #expect(storage.writes.load(ordering: .relaxed) == writesAfterFirst + 1)
            let recorded = try await engine.recordedSchema(appId: "seed-app")
            #expect(recorded["Item"]?["color"] == "String")
            #expect(recorded["Item"]?["itemName"] == "String")
            #expect(recorded["Item"]?["complexity"] == "Int")
            await client.close()
        }
    }

    /// A schema update that takes a while, so that concurrent recordings overlap.
    final class SlowSchemaReads: ForwardingStorage, @unchecked Sendable {
        override func updateSetting(
            appId: String, key: String, _ update: @escaping @Sendable (Value?) throws -> Value?
        ) async throws -> Value? {
            try await base.updateSetting(appId: appId, key: key) { current in
                if key == "schema" { Thread.sleep(forTimeInterval: 0.02) }
                return try update(current)
            }
        }
    }

    /// Sessions adding different fields at the same time all have them recorded. Before, each wrote back the schema
    /// it had read plus its own field, and the last write dropped the others' (checked: 11 of the 12 were lost).
    @Test func concurrentNewFieldsAreAllRecorded() async throws {
        let storage = SlowSchemaReads(MemoryStorage())
        try await storage.prepare()
        let settings = try seedSettings()
        try await withEngine(storage: storage, settings: [settings]) { engine in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for i in 0..<12 {
                    group.addTask {
                        try await engine.checkSchema(settings: settings, written: ["Item": ["field\(i)": .string("x")]])
                    }
                }
                try await group.waitForAll()
            }
            let recorded = try await engine.recordedSchema(appId: settings.appId)
            let fields = Set((recorded["Item"] ?? [:]).keys)
            #expect(fields.isSuperset(of: Set((0..<12).map { "field\($0)" })), "recorded: \(fields.sorted())")
        }
    }

    /// Two server processes on one database (two engines, each with its own storage connection to the same SQLite
    /// file or PostgreSQL schema) record different new fields at the same time: all are recorded. Before, the
    /// read-merge-write was serialised within a process only, and one process's write dropped the other's fields.
    @Test(arguments: Driver.enabled)
    func twoProcessesRecordingAtOnceKeepEachOthersFields(driver: Driver) async throws {
        let settings = try seedSettings()
        try await withTwoStorages(driver) { first, second in
            try await withEngine(storage: first, settings: [settings]) { one in
                try await withEngine(storage: second, settings: [settings]) { two in
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        for i in 0..<16 {
                            let engine = i % 2 == 0 ? one : two
                            group.addTask {
                                try await engine.checkSchema(settings: settings, written: ["Item": ["field\(i)": .string("x")]])
                            }
                        }
                        try await group.waitForAll()
                    }
                    let fields = Set((try await one.recordedSchema(appId: settings.appId)["Item"] ?? [:]).keys)
                    #expect(fields.isSuperset(of: Set((0..<16).map { "field\($0)" })), "\(driver) recorded: \(fields.sorted())")
                }
            }
        }
    }

    /// Two storage instances over one database: a SQLite file, or a PostgreSQL schema.
    func withTwoStorages(_ driver: Driver, _ body: (any ServerStorage, any ServerStorage) async throws -> Void) async throws {
        switch driver {
        case .sqlite:
            try await TemporaryDirectory.with("two-storages") { directory in
                let first = try SQLiteStorage(path: directory.path("server.sqlite"))
                try await first.prepare()
                let second = try SQLiteStorage(path: directory.path("server.sqlite"))
                try await second.prepare()
                do {
                    try await body(first, second)
                } catch {
                    try? await first.close()
                    try? await second.close()
                    throw error
                }
                try await first.close()
                try await second.close()
            }
        case .postgres:
            let environment = try PostgresTestEnvironment.current()
            try await environment.withStorage { first in
                let second = PostgresStorage(configuration: environment.configuration(schema: first.configuration.schema!))
                do {
                    try await body(first, second)
                } catch {
                    try? await second.close()
                    throw error
                }
                try await second.close()
            }
        }
    }
}
