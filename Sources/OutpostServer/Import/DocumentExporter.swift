import Foundation
import OutpostCore

/// `outpost-server export-data`: writes one collection of a running server as Extended JSON, one document per line
/// (what `import-data` and `mongoimport` read), consistent as of one server version although the app goes on writing:
/// pages are read one by one (`AdminExportRoute`), then the documents written since the first page are put in the
/// state they have at the version the export ends at. Memory stays bounded by a page and the documents changed during
/// the export. The file is written under a temporary name and renamed when complete.
package struct DocumentExporter {
    package let server: URL
    package let adminKey: String
    package let collection: String
    package let output: String
    package var pageSize = 1000
    /// Called after each page is written (tests write to the app there, to check the export's consistency).
    package var pageWritten: (Int) async throws -> Void = { _ in }

    package init(server: URL, adminKey: String, collection: String, output: String) {
        self.server = server
        self.adminKey = adminKey
        self.collection = collection
        self.output = output
    }

    /// Exports; returns the number of documents and the server version they are as of.
    @discardableResult
    package func run(progress: (Int) -> Void = { _ in }) async throws -> (documents: Int, serverVersion: Int64) {
        let partial = output + ".partial"
        FileManager.default.createFile(atPath: partial, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: partial) }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: partial))
        var after: String?
        var firstVersion: Int64?
        var count = 0
        repeat {
            var query = "limit=\(pageSize)"
            if let after { query += "&after=" + (after.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? after) }
            let page = try await get("export", query)
            guard case .int(let version)? = page["server_version"], case .array(let documents)? = page["documents"] else {
                throw AppImportError(file: output, "the server's export page is not understood")
            }
            if firstVersion == nil { firstVersion = version }
            var text = ""
            for document in documents { text += document.text + "\n" }
            try handle.write(contentsOf: Data(text.utf8))
            count += documents.count
            progress(count)
            after = page["next"]?.stringValue
            try await pageWritten(count)
        } while after != nil
        try handle.close()

        // The documents written since the first page, as of the export's last version.
        let changes = try await get("changes", "after=\(firstVersion ?? 0)")
        guard case .int(let version)? = changes["server_version"], case .array(let items)? = changes["changes"] else {
            throw AppImportError(file: output, "the server's changes are not understood")
        }
        if items.isEmpty {
            try replace(output, with: partial)
            return (count, version)
        }
        var changed: [String: JSONValue] = [:]  // _id's text → the document, or null when deleted
        for item in items {
            guard let id = item.objectValue?["_id"], let document = item.objectValue?["document"] else { continue }
            changed[id.text] = document
        }
        let corrected = output + ".corrected"
        FileManager.default.createFile(atPath: corrected, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: corrected) }
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: corrected))
        var reader = try ExportDocumentReader(path: partial, format: .jsonLines)
        count = 0
        var buffer = ""
        while let item = try reader.next() {
            guard let json = JSONValue.parse(item.text), let id = json.objectValue?["_id"] else { continue }
            if changed[id.text] != nil { continue }
            buffer += item.text + "\n"
            count += 1
            if buffer.utf8.count > 1 << 20 {
                try out.write(contentsOf: Data(buffer.utf8))
                buffer = ""
            }
        }
        for (_, document) in changed.sorted(by: { $0.key < $1.key }) where document != .null {
            buffer += document.text + "\n"
            count += 1
        }
        try out.write(contentsOf: Data(buffer.utf8))
        try out.close()
        try replace(output, with: corrected)
        return (count, version)
    }

    private func replace(_ path: String, with source: String) throws {
        if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
        try FileManager.default.moveItem(atPath: source, toPath: path)
    }

    private func get(_ action: String, _ query: String) async throws -> [String: JSONValue] {
        let client = AdminHTTPClient(server: server, adminKey: adminKey, collection: collection, file: output)
        let (status, text) = try await client.send("GET", action, query: query)
        guard status == 200, case .object(let object)? = JSONValue.parse(text) else {
            throw AppImportError(file: output,
                "the server refused the export (HTTP \(status)): \(AdminHTTPClient.message(text))")
        }
        return object
    }
}
