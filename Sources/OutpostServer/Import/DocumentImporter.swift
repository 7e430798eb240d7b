import Foundation
import OutpostCore

/// `outpost-server import-data`: sends the documents of an exported collection to a running server's admin import
/// endpoint (`AdminImportRoute`) in batches, so they become sync history that connected clients receive. Memory stays
/// bounded by one batch whatever the file's size. After each batch the server acknowledged, the file offset reached
/// is saved beside the file (`<file>.outpost-import`), so an import that was killed resumes there; since the server
/// stores documents by `_id` and skips unchanged ones, a batch sent twice writes nothing twice.
package struct DocumentImporter {
    package struct Progress: Sendable {
        package var documents: Int
        package var bytes: Int64
        package var totalBytes: Int64
        package var resumedFrom: Int64
    }

    package let server: URL
    package let adminKey: String
    package let collection: String
    package let file: String
    /// Documents per request, and bytes of Extended JSON per request (under the server's 2 MiB default body limit).
    package var batchDocuments = 1000
    package var batchBytes = 1_000_000
    package var requestTimeout: TimeInterval = 120

    package init(server: URL, adminKey: String, collection: String, file: String) {
        self.server = server
        self.adminKey = adminKey
        self.collection = collection
        self.file = file
    }

    /// Where the progress of an interrupted import is kept.
    package var checkpointPath: String { file + ".outpost-import" }

    /// Imports the file; `progress` is called after each batch. Returns the totals.
    @discardableResult
    package func run(progress: (Progress) -> Void = { _ in }) async throws -> Progress {
        let checkpoint = Checkpoint.read(checkpointPath, collection: collection, file: file)
        var reader = try ExportDocumentReader(
            path: file, format: checkpoint?.format, offset: checkpoint?.offset ?? 0, line: checkpoint?.line ?? 1,
            documentIndex: checkpoint?.documents ?? 0)
        var state = Progress(documents: checkpoint?.documents ?? 0, bytes: checkpoint?.offset ?? 0,
                             totalBytes: reader.fileSize, resumedFrom: checkpoint?.offset ?? 0)
        var batch: [String] = []
        var locations: [String] = []
        var batchSize = 0
        var end: (offset: Int64, line: Int, documents: Int)?
        func send() async throws {
            guard !batch.isEmpty, let reached = end else { return }
            try await post(batch, locations: locations)
            state.documents = reached.documents
            state.bytes = reached.offset
            try Checkpoint(collection: collection, format: reader.format, offset: reached.offset, line: reached.line,
                           documents: reached.documents, fileSize: reader.fileSize).write(checkpointPath)
            batch.removeAll(keepingCapacity: true)
            locations.removeAll(keepingCapacity: true)
            batchSize = 0
            progress(state)
        }
        while let item = try reader.next() {
            guard item.hasId else {
                throw AppImportError(file: file, "\(item.location): the document has no _id (imported documents keep the "
                    + "_id they were exported with)")
            }
            if batchSize + item.text.utf8.count > batchBytes || batch.count >= batchDocuments { try await send() }
            batch.append(item.text)
            locations.append(item.location)
            batchSize += item.text.utf8.count + 1
            end = (item.endOffset, reader.currentLine, reader.currentDocumentIndex)
        }
        try await send()
        try? FileManager.default.removeItem(atPath: checkpointPath)
        return state
    }

    private func post(_ documents: [String], locations: [String]) async throws {
        let client = AdminHTTPClient(server: server, adminKey: adminKey, collection: collection, file: file,
                                     timeout: requestTimeout)
        let body = Data(("{\"documents\":[" + documents.joined(separator: ",") + "]}").utf8)
        let (status, text) = try await client.send("POST", "import", body: body)
        guard status == 200 else {
            let message = AdminHTTPClient.message(text)
            // The server names a bad document by its place in the batch (`documents[3]…`): say where it is in the file.
            if status == 400, let range = message.range(of: #"documents\[\d+\]"#, options: .regularExpression),
                let index = Int(message[range].dropFirst(10).dropLast()), locations.indices.contains(index)
            {
                let detail = message.replacingOccurrences(of: "'\(message[range])'", with: "the document")
                    .replacingOccurrences(of: String(message[range]), with: "$")
                throw AppImportError(file: file, "\(locations[index]): \(detail)")
            }
            if status == 413 {
                throw AppImportError(file: file, "\(locations.first ?? "a batch")…: the batch is larger than the server's "
                    + "request body limit; start the server with a larger --max-request-body-size (a single document "
                    + "may need it)")
            }
            throw AppImportError(file: file, "the server refused a batch (HTTP \(status)): \(message)")
        }
    }

    /// The progress of an interrupted import, valid for the same file (size) and collection.
    struct Checkpoint: Codable {
        var collection: String
        var format: ExportDocumentReader.Format
        var offset: Int64
        var line: Int
        var documents: Int
        var fileSize: Int64

        static func read(_ path: String, collection: String, file: String) -> Checkpoint? {
            guard let data = FileManager.default.contents(atPath: path),
                let checkpoint = try? JSONDecoder().decode(Checkpoint.self, from: data),
                checkpoint.collection == collection,
                let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? NSNumber)?.int64Value,
                size == checkpoint.fileSize, checkpoint.offset <= size
            else { return nil }
            return checkpoint
        }

        func write(_ path: String) throws {
            try JSONEncoder().encode(self).write(to: URL(fileURLWithPath: path), options: .atomic)
        }
    }
}

extension ExportDocumentReader.Format: Codable {}
