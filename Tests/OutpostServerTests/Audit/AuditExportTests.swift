import Foundation
import OutpostCore
@testable import OutpostServer
import OutpostServerTesting
import Synchronization
import Testing

/// `GET /api/admin/v1/audit/export`: JSON lines as stored and RFC 4180 CSV, streamed page by page.
@Suite(.timeLimit(.minutes(8))) struct AuditExportTests {
    static let t0: Int64 = 1_704_164_645_000

    /// JSON lines are the stored documents, newest first; CSV has the header and quotes what needs quoting.
    @Test(arguments: Driver.enabled)
    func exportsJSONLinesAndCSV(driver: Driver) async throws {
        try await withAuditServer(driver) { server, storage in
            let user = try await server.newUser()
            var quoted = UploadEvent(timestamp: Self.t0 + 2, activity: "a, \"b\"", type: nil, data: "line one\nline \"two\", end")
            quoted.metadata = ["device": "d"]
            let read = UploadEvent.read("Item", [.int(1), .string("x,y")], timestamp: Self.t0 + 1)
            let other = UploadEvent(timestamp: Self.t0 + 3, activity: "other", data: nil)
            try await server.upload([quoted, read, other], as: user)

            let lines = try await server.admin("audit/export?format=jsonl&user=\(user.id)&since=2024-01-02T03:04:05.001Z&until=2024-01-02T03:04:05.002Z")
            #expect(lines.status == 200)
            #expect(lines.headers["content-type"] == "application/x-ndjson")
            #expect(lines.headers["content-disposition"] == "attachment; filename=\"audit-audit-app.jsonl\"")
            let stored = try await storage.auditEventTexts(appId: server.appId, eventIds: [quoted.id.stringValue, read.id.stringValue])
            #expect(lines.text == stored[quoted.id.stringValue]! + "\n" + stored[read.id.stringValue]! + "\n")
            #expect(lines.text.split(separator: "\n").allSatisfy { (try? Document(extendedJSONText: String($0))) != nil })

            let csv = try await server.admin("audit/export?format=csv")
            #expect(csv.status == 200)
            #expect(csv.headers["content-type"] == "text/csv; charset=utf-8")
            #expect(csv.headers["content-disposition"] == "attachment; filename=\"audit-audit-app.csv\"")
            let rows = Self.parseCSV(csv.text)
            #expect(rows.first == ["id", "timestamp", "activity", "type", "user", "objects", "data"])
            #expect(rows.dropFirst().map { $0.first ?? "" } == newestFirst([quoted, read, other]))
            #expect(rows[2] == [quoted.id.stringValue, "2024-01-02T03:04:05.002Z", "a, \"b\"", "", user.id, "",
                                "line one\nline \"two\", end"])
            #expect(rows[3][5] == #"[{"class":"Item","pk":"1"},{"class":"Item","pk":"x,y"}]"#)
            #expect(rows[1][6] == "", "null data")
            #expect(csv.text.contains("\"line one\nline \"\"two\"\", end\""), "RFC 4180 quoting")
            let empty = try await server.admin("audit/export?format=csv&activity=nothing")
            #expect(empty.text == "id,timestamp,activity,type,user,objects,data\r\n")
        }
    }

    /// 20,000 events are exported whole, read from storage 500 at a time: the export never asks for more than a page.
    @Test(arguments: Driver.enabled)
    func aLargeExportIsStreamedPageByPage(driver: Driver) async throws {
        let pages = PageLog()
        let wrap: @Sendable (any ServerStorage) -> any ServerStorage = { PageWatchingStorage($0, pages: pages) }
        try await withAuditServer(driver, wrap: wrap) { server, _ in
            let user = try await server.newUser()
            for batch in 0..<2 {
                try await server.upload((0..<10_000).map { UploadEvent(timestamp: Self.t0 + Int64(batch * 10_000 + $0)) }, as: user)
            }
            pages.reset()
            let export = try await server.admin("audit/export?format=jsonl")
            #expect(export.status == 200)
            let lines = export.text.split(separator: "\n")
            #expect(lines.count == 20_000)
            #expect(Set(lines).count == 20_000, "no event twice")
            let limits = pages.all
            #expect(limits.count == 41, "40 full pages and the empty one that ends the export")
            #expect(limits.allSatisfy { $0 == AdminAuditExport.pageSize })
            let csv = try await server.admin("audit/export?format=csv")
            #expect(csv.text.split(separator: "\r\n").count == 20_001)
        }
    }

    /// A minimal RFC 4180 reader: quoted fields with doubled quotes and line breaks, CRLF between rows.
    static func parseCSV(_ text: String) -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var field = ""
        var quoted = false
        var characters = Array(text)[...]
        while let c = characters.popFirst() {
            if quoted {
                if c == "\"" {
                    if characters.first == "\"" { field.append("\""); characters.removeFirst() } else { quoted = false }
                } else {
                    field.append(c)
                }
            } else if c == "\"" {
                quoted = true
            } else if c == "," {
                row.append(field)
                field = ""
            } else if c == "\r\n" || c == "\n" {
                row.append(field)
                rows.append(row)
                (row, field) = ([], "")
            } else {
                field.append(c)
            }
        }
        return rows
    }
}

/// The limits of the audit pages a storage was asked for.
final class PageLog: Sendable {
    private let limits = Mutex<[Int]>([])

    func append(_ limit: Int) { limits.withLock { $0.append(limit) } }
    func reset() { limits.withLock { $0 = [] } }
    var all: [Int] { limits.withLock { $0 } }
}

/// Records the limit of every audit page read.
final class PageWatchingStorage: ForwardingStorage, @unchecked Sendable {  // its one property is Sendable
    let pages: PageLog

    init(_ base: any ServerStorage, pages: PageLog) {
        self.pages = pages
        super.init(base)
    }

    override func auditEvents(appId: String, matching search: AuditSearch, limit: Int) async throws -> [AuditEventRecord] {
        pages.append(limit)
        return try await super.auditEvents(appId: appId, matching: search, limit: limit)
    }
}
