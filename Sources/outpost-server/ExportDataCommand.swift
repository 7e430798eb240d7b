import ArgumentParser
import Foundation
import OutpostServer

/// `outpost-server export-data --collection <name>`: one collection of a running server as Extended JSON lines,
/// consistent as of one server version (what `import-data` and `mongoimport` read).
struct ExportDataCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export-data",
        abstract: "Write one collection of a running server as Extended JSON, one document per line.",
        discussion: """
            The documents are those of one server version even while the app writes. Use it to back an app up, to \\
            move it between SQLite and PostgreSQL (export, then import-data into the other server), or to leave. \\
            See docs/import.md.
            """
    )

    @Option(name: .shortAndLong, help: "The collection (the Realm class) to export.")
    var collection: String

    @Option(name: .shortAndLong, help: "The file to write (default: <collection>.json).")
    var output: String?

    @OptionGroup var connection: AdminConnectionOptions

    func run() async throws {
        let key = try connection.resolvedAdminKey()
        let file = output ?? "\(collection).json"
        let exporter = DocumentExporter(server: connection.serverURL, adminKey: key, collection: collection, output: file)
        var last = Date()
        let (count, version) = try await exporter.run { count in
            if Date().timeIntervalSince(last) >= 5 {
                last = Date()
                print("exported \(count) documents")
            }
        }
        print("Exported \(count) documents of \(collection) to \(file), as of server version \(version).")
    }
}
