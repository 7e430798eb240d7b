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

    @OptionGroup var connection: AdminConnectionOptions

    @Option(name: .customLong("batch-size"), help: "Documents per request.")
    var batchSize = 1000

    func validate() throws {
        guard batchSize >= 1 else { throw ValidationError("--batch-size must be 1 or more, not \(batchSize)") }
    }

    func run() async throws {
        let key = try connection.resolvedAdminKey()
        let name = collection ?? Self.collectionName(of: file)
        var importer = DocumentImporter(server: connection.serverURL, adminKey: key, collection: name, file: file)
        importer.batchDocuments = batchSize
        let meter = ProgressMeter(isTerminal: isatty(STDOUT_FILENO) == 1)
        let result = try await importer.run { meter.show($0) }
        meter.finish(result, collection: name)
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
