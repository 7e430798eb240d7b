import Foundation
import OutpostCore
import OutpostServer
import OutpostServerTesting

/// The storage drivers the sync tests run on.
enum Driver: String, CaseIterable, CustomStringConvertible, Sendable {
    case sqlite, postgres
    var description: String { rawValue }

    /// The drivers to test here: SQLite always, PostgreSQL when configured (and always in CI, where a missing
    /// configuration fails the test).
    static var enabled: [Driver] { PostgresTestEnvironment.shouldRun ? [.sqlite, .postgres] : [.sqlite] }

    func withStorage<T: Sendable>(_ body: @Sendable (any ServerStorage) async throws -> T) async throws -> T {
        switch self {
        case .sqlite:
            return try await TemporaryDirectory.with("sync") { directory in
                let storage = try SQLiteStorage(path: directory.path("server.sqlite"))
                try await storage.prepare()
                do {
                    let result = try await body(storage)
                    try await storage.close()
                    return result
                } catch {
                    try? await storage.close()
                    throw error
                }
            }
        case .postgres:
            return try await PostgresTestEnvironment.current().withStorage { storage in try await body(storage) }
        }
    }
}

/// The seed page's app: flexible sync, queryable `_id`, `complexity`, `ownerId`, role `owner-read-write`.
func seedSettings(appId: String = "seed-app", developmentMode: Bool = true) throws -> SyncAppSettings {
    let rules = try RuleSet.parse(rulesText: """
        {"Item": {"roles": [{ "name": "owner-read-write", "apply_when": {}, "document_filters": { "read": { "ownerId": "%%user.id" }, "write": { "ownerId": "%%user.id" } }, "read": true, "write": true }]}}
        """)
    return SyncAppSettings(
        appId: appId, mode: .flexible, queryableFields: ["complexity", "ownerId"], developmentMode: developmentMode,
        schema: ["Item": ["_id": "objectId", "ownerId": "string", "itemName": "string", "complexity": "long"]],
        rules: rules)
}

/// A sync engine over a storage with fixed settings, run for the body's duration.
func withEngine<T: Sendable>(
    storage: any ServerStorage, settings: [SyncAppSettings],
    _ body: @Sendable (SyncEngine) async throws -> T
) async throws -> T {
    let byId = Dictionary(uniqueKeysWithValues: settings.map { ($0.appId, $0) })
    let engine = SyncEngine(storage: storage) { byId[$0] }
    let runner = Task { try await engine.run() }
    defer { runner.cancel() }
    return try await body(engine)
}

extension InMemorySyncConnection {
    /// Binds session 1 as a new flexible-sync file and returns its file ident after the first download.
    func bindNewFile(session: Int64 = 1, mode: SyncMode = .flexible, partition: Value? = nil) async throws -> (ident: Int64, salt: Int64) {
        send(.bind(session: session, mode: mode, partition: partition, fileIdent: nil, salt: nil, cursor: .start, subscriptions: nil))
        guard case .ident(_, let ident, let salt) = try await next() else { throw TestFailure("expected ident") }
        _ = try await next { if case .download = $0 { true } else { false } }
        return (ident, salt)
    }

    /// Sends a subscription set and waits for the last batch of its bootstrap; returns its instructions.
    func subscribe(session: Int64 = 1, version: Int64, _ queries: [String: String]) async throws -> [DownloadInstruction] {
        send(.query(session: session, subscriptions: SubscriptionQuery(version: version, queries: queries)))
        var instructions: [DownloadInstruction] = []
        while true {
            let message = try await next()
            switch message {
            case .download(let download) where download.queryVersion == version && download.batch != .steadyState:
                instructions += download.changesets.flatMap(\.instructions)
                if download.batch == .lastInBatch { return instructions }
            case .queryError(_, _, _, let text):
                throw TestFailure("query refused: \(text)")
            default:
                continue
            }
        }
    }

    /// Uploads one changeset and waits for the download that acknowledges it.
    func upload(session: Int64 = 1, clientVersion: Int64, _ instructions: [SyncInstruction]) async throws {
        send(.upload(session: session, changesets: [UploadChangeset(
            clientVersion: clientVersion, lastServerVersion: 0, timestamp: Int64(Date().timeIntervalSince1970 * 1000),
            instructions: instructions)]))
    }
}

/// Waits until `condition` holds; throws after 20 s.
func eventuallyTrue(_ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(20)
    while !condition() {
        guard ContinuousClock.now < deadline else { throw TestFailure("condition not met within 20 s") }
        try await Task.sleep(for: .milliseconds(10))
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
