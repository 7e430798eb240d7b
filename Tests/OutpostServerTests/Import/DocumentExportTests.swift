import Foundation
import OutpostCore
import OutpostServerTesting
import Testing

@testable import OutpostServer

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `export-data`: what `import-data` loaded comes out identical (types included), and an export taken while the app
/// writes is the collection as of one server version.
@Suite(.timeLimit(.minutes(3))) struct DocumentExportTests {
    private func adminKey(_ server: TestServer) throws -> String {
        try String(contentsOf: server.dataDirectory.appendingPathComponent("admin-key"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Every type an export of MongoDB holds, in canonical and relaxed Extended JSON.
    static let lines = (0..<1_234).map { i in
        #"{"_id": {"$oid": "65a0000000000000000\#(String(format: "%05x", i))"}, "n": {"$numberInt": "\#(i)"}, "# +
            #""big": {"$numberLong": "\#(Int64(i) << 40)"}, "x": \#(Double(i) + 0.25), "price": {"$numberDecimal": "\#(i).10"}, "# +
            #""at": {"$date": {"$numberLong": "\#(1_700_000_000_000 + i)"}}, "u": {"$uuid": "00010203-0405-0607-0809-0a0b0c0d0e0f"}, "# +
            #""bin": {"$binary": {"base64": "AQID", "subType": "00"}}, "tags": ["a", {"k": null}], "inner": {"ok": true}}"#
    }

    @Test(arguments: Driver.enabled)
    func importExportImportGivesIdenticalDocuments(driver: Driver) async throws {
        let dir = try TemporaryDirectory("export")
        defer { dir.remove() }
        let source = dir.path("Item.json")
        try Data(Self.lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: source))
        let exported = dir.path("exported.json")
        let original: [Document] = try await driver.withStorage { storage in
            try await withTestServer(storage: storage) { server in
                let url = URL(string: server.baseURL)!
                try await DocumentImporter(server: url, adminKey: try adminKey(server), collection: "Item", file: source).run()
                var exporter = DocumentExporter(server: url, adminKey: try adminKey(server), collection: "Item", output: exported)
                exporter.pageSize = 500
                let result = try await exporter.run()
                #expect(result.documents == Self.lines.count)
                return try await server.storage.documents(appId: server.appId, collection: "Item")
            }
        }
        #expect(original.count == Self.lines.count)
        // Into a fresh server (memory storage: a move between drivers), then compared value by value.
        try await withTestServer { server in
            try await DocumentImporter(server: URL(string: server.baseURL)!, adminKey: try adminKey(server),
                                       collection: "Item", file: exported).run()
            let again = try await server.storage.documents(appId: server.appId, collection: "Item")
            let byId = Dictionary(uniqueKeysWithValues: again.map { ($0["_id"]!, $0) })
            #expect(again.count == original.count)
            #expect(original.allSatisfy { byId[$0["_id"]!] == $0 })
            let first = try #require(original.first { $0["n"] == .int(0) })
            #expect(first["price"] == .decimal128(try Decimal128(string: "0.10")) && first["x"] == .double(0.25))
            #expect(first["u"].map { if case .uuid = $0 { true } else { false } } == true)
        }
        #expect(!FileManager.default.fileExists(atPath: exported + ".partial"))
    }

    /// Documents changed, added and deleted between the pages are exported as they are at the version the export
    /// ends at: none twice, none stale, none deleted.
    @Test func anExportWhileTheAppWritesIsOneVersion() async throws {
        let dir = try TemporaryDirectory("export")
        defer { dir.remove() }
        let source = dir.path("Item.json")
        try Data((0..<300).map { #"{"_id": \#($0), "v": 0}"# }.joined(separator: "\n").utf8)
            .write(to: URL(fileURLWithPath: source))
        try await withTestServer { server in
            let url = URL(string: server.baseURL)!
            let key = try adminKey(server)
            try await DocumentImporter(server: url, adminKey: key, collection: "Item", file: source).run()
            var exporter = DocumentExporter(server: url, adminKey: key, collection: "Item", output: dir.path("out.json"))
            exporter.pageSize = 100
            exporter.pageWritten = { count in
                guard count == 100 else { return }
                // After the first page: one exported document changes, one is deleted, one is added after the pages.
                let changes = dir.path("changes.json")
                try Data((#"{"_id": 5, "v": 1}"# + "\n" + #"{"_id": 1000, "v": 1}"#).utf8)
                    .write(to: URL(fileURLWithPath: changes))
                try await DocumentImporter(server: url, adminKey: key, collection: "Item", file: changes).run()
                try await server.storage.transaction(appId: server.appId) { transaction in
                    _ = try await transaction.deleteDocument(collection: "Item", primaryKey: .int(7))
                    _ = try await transaction.appendChangeset(ServerChangesetDraft(
                        originFileIdent: 0, originClientVersion: 0, timestamp: Date(),
                        changes: [DocumentChange(collection: "Item", primaryKey: .int(7), before: nil, after: nil,
                                                 changedFields: [])]))
                }
            }
            let result = try await exporter.run()
            let lines = try String(contentsOfFile: dir.path("out.json"), encoding: .utf8).split(separator: "\n")
            let documents = lines.compactMap { JSONValue.parse(String($0))?.objectValue }
            let ids = documents.compactMap { $0["_id"] }
            #expect(result.documents == 300 && ids.count == 300 && Set(ids).count == 300)
            #expect(!ids.contains(.int(7)) && ids.contains(.int(1000)))
            #expect(documents.first { $0["_id"] == .int(5) }?["v"] == .int(1))
        }
    }
}
