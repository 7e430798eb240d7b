import ArgumentParser
import Foundation

/// How `import-data` and `export-data` reach a running server's admin API: its URL and admin key.
struct AdminConnectionOptions: ParsableArguments {
    @Option(help: "The server's URL.")
    var server = "http://127.0.0.1:9090"

    @Option(name: .customLong("admin-key"), help: "The admin key (default: read from <data-dir>/admin-key).")
    var adminKey: String?

    @Option(name: .customLong("data-dir"), help: "The server's data directory, for its admin key.")
    var dataDirectory = "./outpost-data"

    func validate() throws {
        guard URL(string: server)?.scheme != nil else { throw ValidationError("--server must be a URL, not '\(server)'") }
    }

    var serverURL: URL { URL(string: server)! }

    /// `--admin-key`, or the key the server keeps in its data directory.
    func resolvedAdminKey() throws -> String {
        if let adminKey { return adminKey }
        let path = URL(fileURLWithPath: dataDirectory).appendingPathComponent("admin-key").path
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ValidationError("no admin key: pass --admin-key, or --data-dir for the server's data directory "
                + "(\(path) cannot be read)")
        }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
