import CSQLite
import Foundation
@testable import Outpost
import OutpostServer
import OutpostServerTesting
import Testing

/// A session that cannot write its file (here a trigger refuses the download's cursor, as a full disk would refuse
/// the write) reports it to the error handler once, as `.clientInternalError`, and keeps trying with a growing
/// backoff; nothing is lost, and once the file can be written again the download arrives.
@Suite(.timeLimit(.minutes(3))) struct SyncFileFailureTests {
    @Test func aDownloadTheFileRefusesIsReportedOnceAndArrivesLater() async throws {
        try await withTestServer(configuration: .development(appId: "file-failure")) { server in
            try await withClientApp(server) { app in
                let reports = SyncReports()
                reports.install(on: app)
                let user = try await app.login(credentials: .anonymous)
                let (a, b) = try await openTwoDevices(user)
                let path = b.configuration.fileURL!.path
                try Self.execute(path, """
                    CREATE TRIGGER refuse_cursor BEFORE INSERT ON __outpost_sync_meta WHEN NEW.key = 'cursorServerVersion'
                    BEGIN SELECT RAISE(ABORT, 'the disk is full'); END
                    """)

                let item = ConvergenceItem()
                item.note = "sent while the file refused writes"
                try a.write { a.add(item) }
                let upload = try #require(a.syncSession)
                try await withDeadline(.seconds(30), "the upload") { try await upload.wait(for: .upload) }
                try await eventually(timeout: .seconds(30), "the failure's report") {
                    reports.errors.contains { $0.code == .clientInternalError && $0.message.contains("the disk is full") }
                }
                // Two more attempts at least (about 2 s, then 4 s of backoff, each attempt a connection and a
                // bootstrap: on a loaded machine each has taken tens of seconds), still one report.
                try await eventually(timeout: .seconds(100), "two more failed attempts") {
                    reports.lines.filter { $0.contains("could not read or write") && $0.contains("the disk is full") }.count >= 3
                }
                #expect(reports.errors.filter { $0.code == .clientInternalError }.count == 1)
                b.refresh()
                #expect(b.object(ofType: ConvergenceItem.self, forPrimaryKey: item._id) == nil)

                try Self.execute(path, "DROP TRIGGER refuse_cursor")
                let session = try #require(b.syncSession)
                session.reconnect()
                try await withDeadline(.seconds(60), "the download") { try await session.wait(for: .download) }
                b.refresh()
                #expect(b.object(ofType: ConvergenceItem.self, forPrimaryKey: item._id)?.note == item.note)
            }
        }
    }

    /// Runs `sql` on the file through a connection of its own.
    static func execute(_ path: String, _ sql: String) throws {
        var db: OpaquePointer?
        defer { sqlite3_close(db) }
        try #require(sqlite3_open(path, &db) == SQLITE_OK, "cannot open \(path)")
        sqlite3_busy_timeout(db, 10_000)
        let rc = sqlite3_exec(db, sql, nil, nil, nil)
        #expect(rc == SQLITE_OK, "\(String(cString: sqlite3_errmsg(db)))")
    }
}
