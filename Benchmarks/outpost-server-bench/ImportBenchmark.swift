import Foundation
import OutpostCore
import OutpostServer
import OutpostServerTesting

/// `import-data`'s path: a mongoexport-style file of `documents` small documents sent by `DocumentImporter` (1000 per
/// request) to the admin import endpoint of an in-process server, each batch one transaction that becomes sync
/// history; the baseline inserts the same documents straight into the same kind of database, 1000 per transaction
/// (`IngestBenchmark`'s baselines). Writing the file is not timed.
enum ImportBenchmark {
    static func run(driver: String, documents: Int) async throws -> (outpost: Double, baseline: Double) {
        let directory = try TemporaryDirectory("import")
        defer { directory.remove() }
        let (storage, pgSchema) = try await IngestBenchmark.storage(driver: driver, in: directory)
        let docs = Workload.items(count: documents, owner: "user")
        let file = directory.path("Item.json")
        FileManager.default.createFile(atPath: file, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
        var chunk = ""
        for doc in docs {
            chunk += Value.document(doc).extendedJSON.text + "\n"
            if chunk.utf8.count > 1 << 20 {
                handle.write(Data(chunk.utf8))
                chunk = ""
            }
        }
        handle.write(Data(chunk.utf8))
        try handle.close()
        let app = try AppDefinition(jsonText: Workload.appConfiguration)
        let outpost = try await withTestServer(configuration: app, storage: storage) { server in
            let key = try String(contentsOf: server.dataDirectory.appendingPathComponent("admin-key"), encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let importer = DocumentImporter(server: URL(string: server.baseURL)!, adminKey: key, collection: "Item",
                                            file: file)
            let seconds = try await Stats.seconds { try await importer.run() }
            let stored = try await storage.documents(appId: "bench-app", collection: "Item").count
            guard stored == documents else { throw TestServerError("stored \(stored) of \(documents) documents") }
            return seconds
        }
        try await storage.close()
        let baseline: Double
        if driver == "sqlite" {
            baseline = try await IngestBenchmark.sqliteBaseline(path: directory.path("baseline.sqlite"), docs, perTransaction: 1_000)
        } else {
            baseline = try await IngestBenchmark.postgresBaseline(docs, perTransaction: 1_000)
            await IngestBenchmark.dropSchema(pgSchema)
        }
        return (outpost, baseline)
    }
}
