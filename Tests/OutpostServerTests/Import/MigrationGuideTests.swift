import Foundation
import OutpostCore
import OutpostServerTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// docs/migrating-from-realm.md's shell commands, run as written, in order, in a folder holding the worked example's
/// `backend/` export and an `Item.json` from mongoexport. Two adaptations, so the test cannot collide with a server
/// already on the machine: the server command's `--port 9090` becomes a free port (and `import-data`'s `--server`
/// follows it), and its relative paths are made absolute (it is started as a process of its own).
@Suite(.timeLimit(.minutes(3))) struct MigrationGuideTests {
    static var guide: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/migrating-from-realm.md")
    }

    /// The commands of the guide's shell blocks.
    static func commands() throws -> [String] {
        let text = try String(contentsOf: guide, encoding: .utf8)
        var commands: [String] = []
        var inBlock = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                inBlock = line == "```bash" ? !inBlock : false
                continue
            }
            if inBlock, !line.trimmingCharacters(in: .whitespaces).isEmpty { commands.append(String(line)) }
        }
        return commands
    }

    @Test func theGuidesCommandsRunAsWritten() async throws {
        let commands = try Self.commands()
        #expect(commands.count == 3 && commands.allSatisfy { $0.hasPrefix("outpost-server ") }, "\(commands)")
        try await TemporaryDirectory.with("guide") { dir in
            try AppServicesExportFixtures.write(AppServicesExportFixtures.current, in: dir.url.appendingPathComponent("backend"))
            let items = (1...50).map { #"{"_id": {"$oid": "65a0000000000000000000\#(String(format: "%02x", $0))"}, "owner_id": "u\#($0)", "summary": "task \#($0)"}"# }
            try Data(items.joined(separator: "\n").utf8).write(to: dir.url.appendingPathComponent("Item.json"))
            let binary = try OutpostServerProcess.executableURL().path
            var server: OutpostServerProcess?
            defer { if let server { Task { _ = try? await server.terminate() } } }
            for command in commands {
                var arguments = command.split(separator: " ").map(String.init).dropFirst().map { $0 }
                if arguments.last == "&" {
                    arguments.removeLast()
                    for (i, argument) in arguments.enumerated() where i > 0 {
                        if ["--config", "--data-dir"].contains(arguments[i - 1]) { arguments[i] = dir.path(argument) }
                        if arguments[i - 1] == "--port" { arguments[i] = "0" }
                    }
                    server = try await OutpostServerProcess.launch(arguments: arguments)
                    continue
                }
                if let port = server?.port {
                    arguments = arguments.map { $0.replacingOccurrences(of: "127.0.0.1:9090", with: "127.0.0.1:\(port)") }
                }
                let script = "cd '\(dir.url.path)' && '\(binary)' " + arguments.map { "'\($0)'" }.joined(separator: " ")
                let process = try ChildProcess(executable: URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", script])
                process.waitUntilExit()
                #expect(process.terminationStatus == 0, "\(command)")
            }
            // What the commands did: the app file exists, the server serves the imported app, the items are in.
            #expect(FileManager.default.fileExists(atPath: dir.path("outpost-app.json")))
            let port = try #require(server?.port)
            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/api/admin/v1/collections/Item/documents?limit=1")!)
            let key = try String(contentsOfFile: dir.path("outpost-data/admin-key"), encoding: .utf8)
            request.setValue(key.trimmingCharacters(in: .whitespacesAndNewlines), forHTTPHeaderField: "X-Admin-Key")
            let (data, _) = try await URLSession.shared.data(for: request)
            #expect(JSONValue.parse(String(decoding: data, as: UTF8.self))?.objectValue?["total"] == .int(50))
            let app = try await server!.client.get("/api/admin/v1/app")
            #expect(app.status == 403, "the admin API needs the key")
            #expect(server!.banner.contains("app id: todo-abcde"))
            #expect(try await server!.terminate() == 0)
            server = nil
        }
    }
}
