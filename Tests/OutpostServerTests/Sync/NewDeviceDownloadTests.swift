import Foundation
import OutpostCore
import OutpostCoreTesting
import OutpostServer
import OutpostServerTesting
import Testing

/// A new device (no subscriptions, nothing uploaded) has nothing to download before its first bootstrap: its first
/// download moves its cursor to the latest version, with no changesets and without reading the history in between;
/// the cursor's salt is the server's (a bind with it is accepted); the bootstrap then holds every object.
@Suite struct NewDeviceDownloadTests {
    static let user = BootstrapTextTests.user

    /// Counts the changesets read from the storage.
    final class CountingStorage: ForwardingStorage, @unchecked Sendable {  // the counter is behind `lock`
        private let lock = NSLock()
        private var reads = 0
        var changesetReads: Int { lock.withLock { reads } }
        func reset() { lock.withLock { reads = 0 } }

        override func changesets(appId: String, after: Int64, upTo: Int64, limit: Int) async throws -> [ServerChangeset] {
            let read = try await base.changesets(appId: appId, after: after, upTo: upTo, limit: limit)
            lock.withLock { reads += read.count }
            return read
        }
    }

    @Test(arguments: Driver.enabled)
    func aNewDeviceSkipsTheHistoryItCannotSee(driver: Driver) async throws {
        try await driver.withStorage { base in
            let storage = CountingStorage(base)
            let settings = try BootstrapTextTests.settings(readsEverything: true)
            try await withEngine(storage: storage, settings: [settings]) { engine in
                let writer = InMemorySyncConnection(handler: engine, user: Self.user)
                _ = try await writer.bindNewFile()
                _ = try await writer.subscribe(version: 1, ["Thing": "TRUEPREDICATE"])
                for version in 1...30 {
                    try await writer.upload(clientVersion: Int64(version), [.create(
                        className: "Thing", primaryKey: .int(Int64(version)),
                        fields: ["_id": .int(Int64(version)), "n": .int(Int64(version))])])
                    _ = try await OwnChangeEchoTests.download(writer, ack: Int64(version))
                }
                let latest = try await base.latestServerVersion(appId: "text-app")
                #expect(latest >= 30)
                let stored = try await base.documents(appId: "text-app", collection: "Thing", after: nil, limit: 100)
                #expect(stored.count == 30, "the writer's objects are on the server")

                await writer.close()
            }
            // Another server process (a new engine: nothing of the history in its memory) serves the new device.
            try await withEngine(storage: storage, settings: [settings]) { engine in
                let latest = try await base.latestServerVersion(appId: "text-app")
                storage.reset()
                let reader = InMemorySyncConnection(handler: engine, user: Self.user)
                reader.send(.bind(session: 1, mode: .flexible, partition: nil, fileIdent: nil, salt: nil, cursor: .start,
                                  subscriptions: nil))
                guard case .ident(_, let ident, let salt) = try await reader.next() else { throw TestFailure("expected ident") }
                guard case .download(let download) = try await reader.next() else {
                    throw TestFailure("expected a download")
                }
                #expect(download.cursor.serverVersion == latest && download.latestServerVersion == latest)
                #expect(download.changesets.isEmpty)
                #expect(storage.changesetReads <= 1, "at most the latest changeset, for its salt")
                let things = try await reader.subscribe(version: 1, ["Thing": "TRUEPREDICATE"])
                #expect(things.count == 30)
                await reader.close()

                // The cursor it was given is the server's: binding again with it is accepted.
                let again = InMemorySyncConnection(handler: engine, user: Self.user)
                again.send(.bind(session: 1, mode: .flexible, partition: nil, fileIdent: ident, salt: salt, cursor: download.cursor,
                                 subscriptions: nil))
                guard case .download(let next) = try await again.next() else {
                    throw TestFailure("expected a download, not a refusal")
                }
                #expect(next.cursor.serverVersion == latest)
                await again.close()
            }
        }
    }
}
