import Foundation
import Outpost
import OutpostServer
import OutpostServerTesting
import Testing

/// Upload and download progress: reported in bytes and versions, by callbacks and as an async sequence.
extension SyncSessionTests {
    /// Upload progress counts bytes of the queued changesets and is reported on commit (pending) and on
    /// acknowledgement (complete); download progress counts server versions since the connection and completes
    /// once the download has caught up.
    @Test func progressIsReportedInBytesOnCommitAndAcknowledgement() async throws {
        try await withTestServer(configuration: try seedServerApp(appId: "progress")) { server in
            try await withClientApp(server) { app in
                let user = try await app.login(credentials: .anonymous)
                let realm = try await Realm(configuration: seedConfiguration(user), downloadBeforeOpen: .always)
                let session = try #require(realm.syncSession)
                let uploads = ObservedProgress()
                let downloads = ObservedProgress()
                let up = session.addProgressNotification(for: .upload, mode: .reportIndefinitely) { uploads.append($0) }
                let down = session.addProgressNotification(for: .download, mode: .reportIndefinitely) { downloads.append($0) }
                defer {
                    up?.invalidate()
                    down?.invalidate()
                }
                session.suspend()
                try await eventually { session.connectionState == .disconnected }
                let item = Item()
                item.ownerId = user.id
                item.itemName = String(repeating: "n", count: 1_000)
                item.complexity = 1
                try realm.write { realm.add(item) }
                try await eventually(timeout: .seconds(30), "the commit's report") {
                    uploads.all.contains { $0.transferrableBytes - $0.transferredBytes > 1_000 }
                }
                session.resume()
                try await withDeadline(.seconds(30), "upload") { try await session.wait(for: .upload) }
                try await eventually(timeout: .seconds(30), "the acknowledgement's report") {
                    uploads.all.last.map { $0.isTransferComplete && $0.transferredBytes > 1_000 } ?? false
                }
                try await withDeadline(.seconds(30), "download") { try await session.wait(for: .download) }
                try await eventually(timeout: .seconds(30), "a complete download report") {
                    downloads.all.last?.isTransferComplete ?? false
                }
            }
        }
    }

    /// The async sequence form: an upload's reports arrive in order, and with `.forCurrentlyOutstandingWork` the
    /// sequence ends at the complete one; a `.reportIndefinitely` sequence ends when its task is cancelled.
    @Test func progressNotificationsAreAnAsyncSequence() async throws {
        try await withTestServer(configuration: try seedServerApp(appId: "progress-stream")) { server in
            try await withClientApp(server) { app in
                let user = try await app.login(credentials: .anonymous)
                let realm = try await Realm(configuration: seedConfiguration(user), downloadBeforeOpen: .always)
                let session = try #require(realm.syncSession)
                session.suspend()
                try await eventually { session.connectionState == .disconnected }
                let item = Item()
                item.ownerId = user.id
                item.itemName = String(repeating: "s", count: 2_000)
                item.complexity = 1
                try realm.write { realm.add(item) }
                let outstanding = session.progressNotifications(direction: .upload, mode: .forCurrentlyOutstandingWork)
                let observed = ObservedProgress()
                let drained = Task {
                    for await progress in outstanding { observed.append(progress) }
                    return observed.all
                }
                let forever = Task {
                    var count = 0
                    for await _ in session.progressNotifications(direction: .upload, mode: .reportIndefinitely) { count += 1 }
                    return count
                }
                // The first report (on registration) shows the queued commit; only then may the upload go.
                try await eventually(timeout: .seconds(30), "the registration's report") { !observed.all.isEmpty }
                session.resume()
                let reports = try await withDeadline(.seconds(60), "the outstanding upload's reports") { await drained.value }
                #expect(reports.first.map { !$0.isTransferComplete && $0.transferrableBytes - $0.transferredBytes > 2_000 } == true)
                #expect(reports.last?.isTransferComplete == true)
                #expect(reports.dropLast().allSatisfy { !$0.isTransferComplete })
                forever.cancel()
                let seen = try await withDeadline(.seconds(30), "the cancelled sequence ends") { await forever.value }
                #expect(seen >= 1)
            }
        }
    }
}
