import Foundation
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Synchronization
import Testing

/// The SQLite driver's pipelined commits (docs/storage-server.md, "Pipelined commits"): the next transaction of an
/// app runs its body while the previous writes commit, reading them; commits keep their order; a failed commit
/// fails the ones queued behind it and stores nothing of them. The writer queue is held with
/// `holdWriterQueue()` so that the commits are still queued while the next bodies run.
@Suite struct SQLitePipelinedCommitTests {
    private func draft(_ note: String) -> ServerChangesetDraft {
        ServerChangesetDraft(changes: [DocumentChange(collection: "Item", primaryKey: .string(note), before: nil,
                                                      after: ["_id": .string(note)], changedFields: ["_id"])])
    }

    @Test func theNextBodyReadsQueuedWritesAndCommitsFollowInOrder() async throws {
        try await TemporaryDirectory.with("pipeline") { directory in
            let storage = try SQLiteStorage(path: directory.path("server.sqlite"))
            try await storage.prepare()
            let release = storage.holdWriterQueue()
            let first = try await storage.queuedTransaction(appId: "app") { tx -> Int64 in
                try await tx.putDocument(collection: "Item", ["_id": .int(1), "v": .string("a")])
                try await tx.putDocument(collection: "Item", ["_id": .int(2), "v": .string("gone soon")])
                try await tx.setIntegratedClientVersion(fileIdent: 7, 3)
                return try await tx.appendChangeset(draft("first"))
            }
            let second = try await storage.queuedTransaction(appId: "app") { tx -> Int64 in
                // The first transaction has not committed, and this body sees its writes.
                let found = try await tx.documents(collection: "Item", primaryKeys: [.int(1), .int(2), .int(3)])
                #expect(found[.int(1)] == ["_id": .int(1), "v": .string("a")])
                #expect(found[.int(2)] != nil)
                #expect(found[.int(3)] == nil)
                #expect(try await tx.latestServerVersion() == 1)
                #expect(try await tx.integratedClientVersion(fileIdent: 7) == 3)
                try await tx.putDocument(collection: "Item", ["_id": .int(1), "v": .string("b")])
                #expect(try await tx.deleteDocument(collection: "Item", primaryKey: .int(2)), "it exists in the queue")
                try await tx.setIntegratedClientVersion(fileIdent: 7, 4)
                return try await tx.appendChangeset(draft("second"))
            }
            let third = try await storage.queuedTransaction(appId: "app") { tx -> Int64 in
                let found = try await tx.documents(collection: "Item", primaryKeys: [.int(1), .int(2)])
                #expect(found == [.int(1): ["_id": .int(1), "v": .string("b")]], "the newest queued write wins")
                #expect(try await tx.integratedClientVersion(fileIdent: 7) == 4)
                return try await tx.latestServerVersion()
            }
            // Nothing is committed while the writer is held; reads outside transactions see the committed state.
            #expect(try await storage.latestServerVersion(appId: "app") == 0)
            #expect(try await storage.document(appId: "app", collection: "Item", primaryKey: .int(1)) == nil)

            release()
            #expect(try await first.committed() == 1)
            #expect(try await second.committed() == 2)
            #expect(try await third.committed() == 2)
            #expect(try await storage.latestServerVersion(appId: "app") == 2)
            #expect(try await storage.documents(appId: "app", collection: "Item") == [["_id": .int(1), "v": .string("b")]])
            let history = try await storage.changesets(appId: "app", after: 0, upTo: 10, limit: 10)
            #expect(history.map(\.serverVersion) == [1, 2])
            #expect(history.map { $0.draft.changes.first?.primaryKey } == [.string("first"), .string("second")])
            let integrated = try await storage.transaction(appId: "app") { tx in
                try await tx.integratedClientVersion(fileIdent: 7)
            }
            #expect(integrated == 4)
            try await storage.close()
        }
    }

    @Test func aFailedCommitFailsTheTransactionsThatReadItsWrites() async throws {
        try await TemporaryDirectory.with("pipeline-failure") { directory in
            let path = directory.path("server.sqlite")
            let storage = try SQLiteStorage(path: path)
            try await storage.prepare()
            let release = storage.holdWriterQueue()
            let first = try await storage.queuedTransaction(appId: "app") { tx in
                try await tx.putDocument(collection: "Item", ["_id": .int(1)])
                return try await tx.appendChangeset(draft("first"))
            }
            let second = try await storage.queuedTransaction(appId: "app") { tx in
                #expect(try await tx.documents(collection: "Item", primaryKeys: [.int(1)]).count == 1)
                try await tx.putDocument(collection: "Item", ["_id": .int(2)])
                return try await tx.appendChangeset(draft("second"))
            }
            let readOnly = try await storage.queuedTransaction(appId: "app") { tx in
                try await tx.latestServerVersion()
            }
            // Another writer of the same file (unsupported, but detected) appends version 1 meanwhile, so the first
            // commit finds the history moved and fails.
            let other = try SQLiteStorage(path: path)
            _ = try await other.transaction(appId: "app") { tx in try await tx.appendChangeset(draft("other")) }
            try await other.close()
            release()

            await #expect(throws: StorageError.self) { try await first.committed() }
            do {
                _ = try await first.committed()
            } catch let error as StorageError {
                #expect(error.code == .conflict)
                #expect(error.message.contains("history moved from 0 to 1"), "\(error.message)")
            }
            for pending in [second, readOnly] {
                do {
                    _ = try await pending.committed()
                    Issue.record("a transaction that read a failed commit's writes committed")
                } catch let error as StorageError {
                    #expect(error.code == .conflict)
                    #expect(error.message.contains("failed to commit"), "\(error.message)")
                }
            }
            // Nothing of the failed transactions is stored, and the app goes on from the other writer's version.
            #expect(try await storage.documents(appId: "app", collection: "Item").isEmpty)
            let history = try await storage.changesets(appId: "app", after: 0, upTo: 10, limit: 10)
            #expect(history.map { $0.draft.changes.first?.primaryKey } == [.string("other")])
            let next = try await storage.transaction(appId: "app") { tx in
                #expect(try await tx.documents(collection: "Item", primaryKeys: [.int(1), .int(2)]).isEmpty)
                return try await tx.appendChangeset(draft("next"))
            }
            #expect(next == 2)
            try await storage.close()
        }
    }

    /// What the caller records between durability and the change notification (the sync hub's memory) is there
    /// before anyone the notification wakes looks; a failed commit runs nothing and announces nothing.
    @Test func theNotificationFollowsWhatTheCallerRecords() async throws {
        try await TemporaryDirectory.with("announce") { directory in
            let storage = try SQLiteStorage(path: directory.path("server.sqlite"))
            try await storage.prepare()
            let events = Mutex<[String]>([])
            let notifications = try await storage.changeNotifications()
            let listener = Task {
                for await note in notifications {
                    events.withLock { $0.append("notified \(note.serverVersion)") }
                    if note.serverVersion == 1 { return }
                }
            }
            let pending = try await storage.queuedTransaction(appId: "app") { tx in
                try await tx.appendChangeset(draft("one"))
            }
            let version = try await pending.committed { version in
                // Slow on purpose: a notification sent before this ran would be seen first.
                try? await Task.sleep(for: .milliseconds(100))
                events.withLock { $0.append("recorded \(version)") }
            }
            await listener.value
            #expect(version == 1)
            #expect(events.withLock { $0 } == ["recorded 1", "notified 1"])
        }
    }

    @Test func closeWaitsForQueuedCommits() async throws {
        try await TemporaryDirectory.with("pipeline-close") { directory in
            let path = directory.path("server.sqlite")
            let storage = try SQLiteStorage(path: path)
            try await storage.prepare()
            let release = storage.holdWriterQueue()
            _ = try await storage.queuedTransaction(appId: "app") { tx in
                try await tx.putDocument(collection: "Item", ["_id": .int(1)])
                return try await tx.appendChangeset(draft("queued"))
            }
            let closing = Task { try await storage.close() }
            try await Task.sleep(for: .milliseconds(100))
            release()
            try await closing.value
            let reopened = try SQLiteStorage(path: path)
            try await reopened.prepare()
            #expect(try await reopened.latestServerVersion(appId: "app") == 1)
            #expect(try await reopened.document(appId: "app", collection: "Item", primaryKey: .int(1)) == ["_id": .int(1)])
            try await reopened.close()
        }
    }
}
