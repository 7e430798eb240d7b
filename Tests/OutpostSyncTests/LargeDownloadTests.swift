import Foundation
import Outpost
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Testing

/// Uploads and downloads larger than one WebSocket message (16 MiB; the client reads at most 16 MiB + 1 KiB): they
/// are split by bytes, not only by count, so a client that wrote or fell behind large writes offline catches up
/// instead of having its message refused and reconnecting for ever; a document too large for any download is
/// refused at upload, and a transaction too large for any upload at commit.
@Suite(.timeLimit(.minutes(3))) struct LargeDownloadTests {
    /// A note of `megabytes` MiB that differs per object.
    static func note(_ megabytes: Int, _ tag: String) -> String {
        tag + String(repeating: "x", count: megabytes * 1024 * 1024 - tag.utf8.count)
    }

    @Test func aClientCatchesUpOnDownloadsLargerThanAMessage() async throws {
        try await withTestServer(configuration: .development(appId: "large")) { server in
            try await withClientApp(server) { app in
                let reports = SyncReports()
                reports.install(on: app)
                let user = try await app.login(credentials: .anonymous)
                let (a, b) = try await openTwoDevices(user)
                let session = b.syncSession!
                session.suspend()
                // A writes offline too: its 27 MiB of queued transactions go out in several upload messages.
                let uploader = a.syncSession!
                uploader.suspend()

                // Three transactions of 5 MiB (15 MiB in one steady-state batch before), then one transaction
                // of three 4 MiB objects: one changeset of 12 MiB, larger than a download message's 8 MiB.
                var expected: [ObjectId: String] = [:]
                for i in 0..<3 {
                    let item = ConvergenceItem()
                    item.note = Self.note(5, "single \(i) ")
                    expected[item._id] = item.note
                    try a.write { a.add(item) }
                }
                try a.write {
                    for i in 0..<3 {
                        let item = ConvergenceItem()
                        item.note = Self.note(4, "together \(i) ")
                        expected[item._id] = item.note
                        a.add(item)
                    }
                }
                uploader.resume()
                try await withDeadline(.seconds(60), "A's upload") { try await uploader.wait(for: .upload) }

                session.resume()
                try await withDeadline(.seconds(60), "B's download") { try await session.wait(for: .download) }
                b.refresh()
                let items = b.objects(ConvergenceItem.self)
                #expect(items.count == expected.count)
                for (id, note) in expected {
                    #expect(b.object(ofType: ConvergenceItem.self, forPrimaryKey: id)?.note == note)
                }

                // A new device bootstraps the 27 MiB in messages of at most 8 MiB of documents.
                var config = user.flexibleSyncConfiguration(initialSubscriptions: { subscriptions in
                    subscriptions.append(QuerySubscription<ConvergenceItem>(name: "all"))
                })
                config.objectTypes = [ConvergenceItem.self]
                config.fileURL = a.configuration.fileURL!.deletingLastPathComponent().appendingPathComponent("c.realm")
                let thirdConfig = config
                try await withDeadline(.seconds(60), "C's first open") {
                    _ = try await Realm(configuration: thirdConfig, downloadBeforeOpen: .always)
                }
                let third = try await Realm(configuration: thirdConfig, downloadBeforeOpen: .never)
                #expect(third.objects(ConvergenceItem.self).count == expected.count)
                for (id, note) in expected {
                    #expect(third.object(ofType: ConvergenceItem.self, forPrimaryKey: id)?.note == note)
                }
                #expect(reports.errors.isEmpty, "no sync error: \(reports.errors)")
            }
        }
    }

    /// An object larger than any download could carry is refused as a compensating write, with its size in the
    /// reason, and reverted on the client; the session goes on.
    @Test func anObjectTooLargeForADownloadIsRefusedAsACompensatingWrite() async throws {
        try await withTestServer(configuration: .development(appId: "too-large")) { server in
            try await withClientApp(server) { app in
                let reports = SyncReports()
                reports.install(on: app)
                let user = try await app.login(credentials: .anonymous)
                let (a, b) = try await openTwoDevices(user)
                let huge = ConvergenceItem()
                huge.note = String(repeating: "y", count: SyncProtocolLimits.maxMessageBytes - 40 * 1024)
                let id = huge._id
                try a.write { a.add(huge) }
                let errors = try await reports.waitForErrors(1, timeout: .seconds(60))
                #expect(errors[0].code == .writeRejected)
                let info = try #require(errors[0].compensatingWriteInfo?.first)
                #expect(info.objectType == "ConvergenceItem")
                #expect(info.primaryKey == .objectId(id))
                #expect(info.reason.hasPrefix("write to \"\(id.stringValue)\" in table \"ConvergenceItem\" was denied: the object would be "))
                #expect(info.reason.hasSuffix(" bytes, more than the limit of \(SyncProtocolLimits.maxDocumentBytes) bytes"))
                a.refresh()
                #expect(a.object(ofType: ConvergenceItem.self, forPrimaryKey: id) == nil, "reverted")

                // The session goes on: a normal write reaches the other device.
                let small = ConvergenceItem()
                small.name = "small"
                try a.write { a.add(small) }
                try await a.syncSession!.wait(for: .upload)
                let other = b.syncSession!
                try await withDeadline(.seconds(30), "B's download") { try await other.wait(for: .download) }
                b.refresh()
                #expect(b.object(ofType: ConvergenceItem.self, forPrimaryKey: small._id)?.name == "small")
                #expect(b.object(ofType: ConvergenceItem.self, forPrimaryKey: id) == nil)
                #expect(reports.errors.count == 1)
            }
        }
    }

    /// A transaction whose changes cannot fit one upload message is refused at commit, with nothing written, and
    /// the session goes on.
    @Test func aTransactionTooLargeForAnUploadIsRefusedAtCommit() async throws {
        try await withTestServer(configuration: .development(appId: "too-large-upload")) { server in
            try await withClientApp(server) { app in
                let reports = SyncReports()
                reports.install(on: app)
                let user = try await app.login(credentials: .anonymous)
                let (a, b) = try await openTwoDevices(user)
                let first = ConvergenceItem()
                first.note = Self.note(9, "first ")
                let second = ConvergenceItem()
                second.note = Self.note(9, "second ")
                do {
                    try a.write {
                        a.add(first)
                        a.add(second)
                    }
                    Issue.record("a commit of 18 MiB of changes succeeded")
                } catch let error as Realm.Error {
                    #expect(error.code == .fail)
                    #expect(error.localizedDescription.hasPrefix("The write transaction could not be queued for upload: its changes take "))
                    #expect(error.localizedDescription.hasSuffix("bytes, more than the \(SyncProtocolLimits.maxMessageBytes - 1024) bytes one upload message can carry; split it into smaller write transactions"))
                }
                #expect(!a.isInWriteTransaction)
                #expect(a.objects(ConvergenceItem.self).isEmpty, "nothing was written")

                // The same changes in two transactions sync (as in Realm, the objects of the refused transaction
                // are invalidated; new ones are made).
                let third = ConvergenceItem()
                third.note = Self.note(9, "third ")
                let fourth = ConvergenceItem()
                fourth.note = Self.note(9, "fourth ")
                try a.write { a.add(third) }
                try a.write { a.add(fourth) }
                let uploader = a.syncSession!
                try await withDeadline(.seconds(60), "A's upload") { try await uploader.wait(for: .upload) }
                let other = b.syncSession!
                try await withDeadline(.seconds(60), "B's download") { try await other.wait(for: .download) }
                b.refresh()
                #expect(b.objects(ConvergenceItem.self).count == 2)
                #expect(b.object(ofType: ConvergenceItem.self, forPrimaryKey: fourth._id)?.note == Self.note(9, "fourth "))
                #expect(reports.errors.isEmpty, "no sync error: \(reports.errors)")
            }
        }
    }
}
