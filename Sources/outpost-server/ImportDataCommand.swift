import ArgumentParser
import Foundation
import OutpostServer

/// `outpost-server import-data <file>`: loads an exported MongoDB collection (mongoexport JSON or mongodump BSON)
/// into a running server, as sync history clients receive. Resumable: run it again after an interruption.
struct ImportDataCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import-data",
        abstract: "Load a mongoexport (.json) or mongodump (.bson) file into a running server.",
        discussion: """
            Documents keep their _id and BSON types, are stored by _id (replacing one already there) and reach sync \\
            clients as changes. An interrupted import continues where it stopped when run again; importing a file \\
            twice writes nothing the second time. See docs/import.md.
            """
    )

    @Argument(help: "The exported collection: Extended JSON (one document per line, or an array) or a .bson file.")
    var file: String

    @Option(name: .shortAndLong, help: "The collection (the Realm class) to load into (default: the file's name).")
    var collection: String?

    @Option(help: "The server's URL.")
    var server = "http://127.0.0.1:9090"

    @Option(name: .customLong("admin-key"), help: "The admin key (default: read from <data-dir>/admin-key).")
    var adminKey: String?

    @Option(name: .customLong("data-dir"), help: "The server's data directory, for its admin key.")
    var dataDirectory = "./outpost-data"

    @Option(name: .customLong("batch-size"), help: "Documents per request.")
    var batchSize = 1000

    func validate() throws {
        guard batchSize >= 1 else { throw ValidationError("--batch-size must be 1 or more, not \(batchSize)") }
        guard URL(string: server)?.scheme != nil else { throw ValidationError("--server must be a URL, not '\(server)'") }
    }

    func run() async throws {
        let key = try adminKey ?? Self.adminKey(in: dataDirectory)
        let name = collection ?? Self.collectionName(of: file)
        var importer = DocumentImporter(server: URL(string: server)!, adminKey: key, collection: name, file: file)
        importer.batchDocuments = batchSize
        let meter = ProgressMeter(isTerminal: isatty(STDOUT_FILENO) == 1)
        let result = try await importer.run { meter.show($0) }
        meter.finish(result, collection: name)
    }

    /// The admin key the server keeps in its data directory.
    static func adminKey(in dataDirectory: String) throws -> String {
        let path = URL(fileURLWithPath: dataDirectory).appendingPathComponent("admin-key").path
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ValidationError("no admin key: pass --admin-key, or --data-dir for the server's data directory "
                + "(\(path) cannot be read)")
        }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `dump/shop/Item.bson` and `Item.json` load into `Item`.
    static func collectionName(of file: String) -> String {
        var name = URL(fileURLWithPath: file).lastPathComponent
        for suffix in [".json", ".jsonl", ".ndjson", ".bson"] where name.hasSuffix(suffix) {
            name = String(name.dropLast(suffix.count))
        }
        return name
    }
}

/// Progress on a terminal (one line, redrawn: documents, bytes, rate, time left) or, otherwise, a plain line every
/// few seconds.
final class ProgressMeter {
    let isTerminal: Bool
    let started = Date()
    var lastLine = Date.distantPast

    init(isTerminal: Bool) { self.isTerminal = isTerminal }

    func show(_ progress: DocumentImporter.Progress) {
        let now = Date()
        guard isTerminal || now.timeIntervalSince(lastLine) >= 5 else { return }
        lastLine = now
        let line = Self.text(progress, elapsed: now.timeIntervalSince(started))
        if isTerminal { print("\r\u{1B}[K" + line, terminator: "") } else { print(line) }
        fflush(nil)
    }

    func finish(_ progress: DocumentImporter.Progress, collection: String) {
        if isTerminal { print("\r\u{1B}[K", terminator: "") }
        print(Self.text(progress, elapsed: Date().timeIntervalSince(started)))
        print("Imported \(progress.documents) documents into \(collection).")
    }

    static func text(_ p: DocumentImporter.Progress, elapsed: TimeInterval) -> String {
        let total = max(p.totalBytes, 1)
        let percent = Int(Double(p.bytes) * 100 / Double(total))
        let width = 20
        let filled = min(width, percent * width / 100)
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        let done = Double(p.bytes - p.resumedFrom)
        let rate = elapsed > 0 ? done / elapsed : 0
        let left = rate > 0 ? Int(Double(p.totalBytes - p.bytes) / rate) : 0
        let megabytes = { (b: Int64) in String(format: "%.1f", Double(b) / 1_048_576) }
        return "[\(bar)] \(percent)% · \(p.documents) documents · \(megabytes(p.bytes)) of \(megabytes(p.totalBytes)) MB"
            + " · \(String(format: "%.1f", rate / 1_048_576)) MB/s · ETA \(left / 60):\(String(format: "%02d", left % 60))"
    }
}
