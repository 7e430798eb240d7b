import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import OutpostCore
import OutpostServerTesting
import Testing

@testable import OutpostServer

/// The admin import endpoint and `DocumentImporter` against a real server on 127.0.0.1.
@Suite(.timeLimit(.minutes(3))) struct AdminImportTests {
    private func adminKey(_ server: TestServer) throws -> String {
        try String(contentsOf: server.dataDirectory.appendingPathComponent("admin-key"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func importBatch(_ server: TestServer, key: String?, collection: String = "Item", _ documents: [JSONValue])
        async throws -> (status: Int, body: JSONValue?)
    {
        var request = URLRequest(url: URL(string: "\(server.baseURL)/api/admin/v1/collections/\(collection)/import")!)
        request.httpMethod = "POST"
        if let key { request.setValue(key, forHTTPHeaderField: "X-Admin-Key") }
        request.httpBody = Data(JSONValue.object(["documents": .array(documents)]).text.utf8)
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as! HTTPURLResponse).statusCode, JSONValue.parse(String(decoding: data, as: UTF8.self)))
    }

    private func doc(_ id: Int, _ name: String) -> JSONValue {
        .object(["_id": .object(["$numberInt": .string("\(id)")]), "name": .string(name)])
    }

    @Test(arguments: Driver.enabled)
    func documentsAreStoredByIdAndUnchangedOnesAreNotWrittenAgain(driver: Driver) async throws {
        try await driver.withStorage { storage in try await withTestServer(storage: storage) { server in
            let key = try adminKey(server)
            let first = try await importBatch(server, key: key, [doc(1, "a"), doc(2, "b")])
            #expect(first.status == 200 && first.body == .object(["written": .int(2), "unchanged": .int(0)]))
            let again = try await importBatch(server, key: key, [doc(1, "a"), doc(2, "B")])
            #expect(again.body == .object(["written": .int(1), "unchanged": .int(1)]))
            let stored = try await server.storage.documents(appId: server.appId, collection: "Item")
            #expect(Set(stored.compactMap { $0["name"] }) == [.string("a"), .string("B")])
        } }
    }

    @Test func aBadBatchWritesNothingAndSaysWhere() async throws {
        try await withTestServer { server in
            let key = try adminKey(server)
            let missingId = try await importBatch(server, key: key, [doc(1, "a"), .object(["name": .string("b")])])
            #expect(missingId.status == 400)
            #expect(missingId.body?.objectValue?["error"]?.stringValue?.contains("'documents[1]' has no _id") == true)
            let badValue = try await importBatch(server, key: key, [.object(["_id": .object(["$oid": .string("zz")])])])
            #expect(badValue.status == 400, "\(String(describing: badValue.body))")
            let dollar = try await importBatch(server, key: key, [.object(["_id": .int(1), "$set": .int(1)])])
            #expect(dollar.status == 400)
            let huge = String(repeating: "x", count: SyncProtocolLimits.maxDocumentBytes)
            let tooLarge = try await importBatch(server, key: key, [.object(["_id": .int(9), "blob": .string(huge)])])
            #expect(tooLarge.status == 413 || tooLarge.status == 400)
            #expect(try await server.storage.documents(appId: server.appId, collection: "Item").isEmpty)
        }
    }

    @Test func anotherKeyOrNoneIsRefused() async throws {
        try await withTestServer { server in
            #expect(try await importBatch(server, key: nil, [doc(1, "a")]).status == 403)
            #expect(try await importBatch(server, key: "not-the-key", [doc(1, "a")]).status == 403)
            // A user's access token is not an admin key either.
            let login = try await server.client.post("/api/client/v2.0/app/\(server.appId)/auth/providers/anon-user/login")
            let token = login.json?.objectValue?["access_token"]?.stringValue ?? ""
            #expect(try await importBatch(server, key: token, [doc(1, "a")]).status == 403)
            #expect(try await server.storage.documents(appId: server.appId, collection: "Item").isEmpty)
        }
    }

    /// The importer sends a file in batches; a second run writes nothing; its checkpoint is gone once done.
    @Test(arguments: Driver.enabled)
    func theImporterLoadsAFileOnceWhateverTheRuns(driver: Driver) async throws {
        try await driver.withStorage { storage in try await withTestServer(storage: storage) { server in
            let dir = try TemporaryDirectory("importer")
            defer { dir.remove() }
            let file = dir.path("Item.json")
            let lines = (0..<2_345).map { #"{"_id": {"$numberInt": "\#($0)"}, "name": "item \#($0)"}"# }
            try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: file))
            var importer = DocumentImporter(server: URL(string: server.baseURL)!, adminKey: try adminKey(server),
                                            collection: "Item", file: file)
            importer.batchDocuments = 500
            var reports: [Int] = []
            let result = try await importer.run { reports.append($0.documents) }
            #expect(result.documents == 2_345 && reports == [500, 1000, 1500, 2000, 2345])
            #expect(!FileManager.default.fileExists(atPath: importer.checkpointPath))
            _ = try await importer.run()
            #expect(try await server.storage.documents(appId: server.appId, collection: "Item").count == 2_345)
            // Counted and paged without reading the collection whole (the admin console's views).
            #expect(try await server.storage.documentCount(appId: server.appId, collection: "Item") == 2_345)
            #expect(try await server.storage.documentCount(appId: server.appId, collection: "None") == 0)
            var request = URLRequest(url: URL(string: "\(server.baseURL)/api/admin/v1/collections/Item/documents?limit=7")!)
            request.setValue(try adminKey(server), forHTTPHeaderField: "X-Admin-Key")
            let (data, _) = try await URLSession.shared.data(for: request)
            let page = JSONValue.parse(String(decoding: data, as: UTF8.self))?.objectValue
            #expect(page?["total"] == .int(2_345) && page?["documents"]?.arrayValue?.count == 7)
            var list = URLRequest(url: URL(string: "\(server.baseURL)/api/admin/v1/collections")!)
            list.setValue(try adminKey(server), forHTTPHeaderField: "X-Admin-Key")
            let (listed, _) = try await URLSession.shared.data(for: list)
            #expect(JSONValue.parse(String(decoding: listed, as: UTF8.self))
                == .object(["collections": .array([.object(["name": .string("Item"), "count": .int(2_345)])])]))
        } }
    }

    /// A bad document stops the import before its batch is sent; what was sent before stays, and a run after the fix
    /// continues from there.
    @Test func aBadDocumentStopsTheImportAtItsBatch() async throws {
        try await withTestServer { server in
            let dir = try TemporaryDirectory("importer")
            defer { dir.remove() }
            let file = dir.path("Item.json")
            var lines = (0..<30).map { #"{"_id": \#($0)}"# }
            lines[25] = #"{"name": "no id"}"#
            try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: file))
            var importer = DocumentImporter(server: URL(string: server.baseURL)!, adminKey: try adminKey(server),
                                            collection: "Item", file: file)
            importer.batchDocuments = 10
            await #expect {
                try await importer.run()
            } throws: { error in
                "\(error)" == "\(file): line 26: the document has no _id (imported documents keep the _id they were exported with)"
            }
            #expect(try await server.storage.documents(appId: server.appId, collection: "Item").count == 20)
            // A value the server cannot read is reported at its line too.
            lines[25] = #"{"_id": {"$oid": "nothex"}}"#
            try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: file))
            await #expect {
                try await importer.run()
            } throws: { error in
                "\(error)".hasPrefix("\(file): line 26: ") && "\(error)".contains("$oid")
            }
            #expect(try await server.storage.documents(appId: server.appId, collection: "Item").count == 20)
            lines[25] = #"{"_id": 25}"#
            try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: file))
            // The file changed size: the checkpoint no longer fits it, and the import starts over, writing only the rest.
            try await importer.run()
            #expect(try await server.storage.documents(appId: server.appId, collection: "Item").count == 30)
        }
    }
}
