import ArgumentParser
import Foundation
import OutpostServer

/// `outpost-server import-app <folder>`: an App Services export (`appservices pull`, `realm-cli pull`) becomes an
/// Outpost app file; the report lists every setting carried over and every one left out, with why.
struct ImportAppCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import-app",
        abstract: "Turn an Atlas App Services export into an Outpost app configuration file.",
        discussion: """
            Reads the folder `appservices pull` or `realm-cli pull`/`export` wrote (root_config.json, \\
            realm_config.json, config.json or stitch.json layouts), writes the app file and prints what was carried \\
            over and what was not. Start the server with `outpost-server --config <output>`. See docs/import.md.
            """
    )

    @Argument(help: "The App Services export folder.")
    var folder: String

    @Option(name: .shortAndLong, help: "The Outpost app file to write.")
    var output = "outpost-app.json"

    @Option(name: .customLong("app-id"), help: "The app id clients use (default: the export's client app id).")
    var appId: String?

    @Option(name: .customLong("secret"), help: "A secret's value, as name=value (exports leave secret values out).")
    var secrets: [String] = []

    @Flag(help: "Replace the output file if it exists.")
    var force = false

    func validate() throws {
        for secret in secrets where !secret.contains("=") || secret.hasPrefix("=") {
            throw ValidationError("--secret takes name=value, not '\(secret)'")
        }
    }

    func run() throws {
        let outputURL = URL(fileURLWithPath: output)
        if FileManager.default.fileExists(atPath: outputURL.path) && !force {
            throw ValidationError("\(output) exists; pass --force to replace it")
        }
        var values: [String: String] = [:]
        for secret in secrets {
            let parts = secret.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            values[String(parts[0])] = String(parts[1])
        }
        let (configuration, report) = try AppServicesImport.run(
            folder: URL(fileURLWithPath: folder), appId: appId, secrets: values)
        try configuration.write(to: outputURL)
        print(report)
        print("\nWrote \(output) (app \(configuration.appId)). Start the server with: outpost-server --config \(output)")
    }
}
