import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Testing

/// `outpost-server import-app` as users run it: the file it writes starts the server; a bad export writes nothing.
@Suite struct ImportAppCommandTests {
    /// Runs `outpost-server` with `arguments`; its exit status, standard output and standard error.
    private func run(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        let output = Pipe(), errors = Pipe()
        let process = try ChildProcess(executable: try OutpostServerProcess.executableURL(), arguments: arguments,
                                       standardOutput: output, standardError: errors)
        // Both pipes are read to the end before waiting: a full pipe would stop the process.
        let errorData = LockedData()
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            errorData.set(errors.fileHandleForReading.readDataToEndOfFile())
            done.signal()
        }
        let outputText = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        done.wait()
        process.waitUntilExit()
        return (process.terminationStatus, outputText, String(decoding: errorData.get(), as: UTF8.self))
    }

    @Test func theImportedFileStartsTheServer() async throws {
        try await TemporaryDirectory.with("import-app") { dir in
            let export = dir.url.appendingPathComponent("backend")
            try AppServicesExportFixtures.write(AppServicesExportFixtures.current, in: export)
            let file = dir.path("outpost-app.json")
            let first = try run(["import-app", export.path, "--output", file])
            #expect(first.status == 0, "\(first.errors)")
            #expect(first.output.contains("✓ .mdb/meta.json: client_app_id → app_id \"todo-abcde\""), "\(first.output)")
            #expect(first.output.contains("✗ triggers (nightly): "))
            #expect(first.output.contains("Start the server with: outpost-server --config \(file)"))

            // An existing file is kept unless --force.
            let again = try run(["import-app", export.path, "--output", file])
            #expect(again.status != 0 && again.errors.contains("exists; pass --force to replace it"), "\(again.errors)")
            #expect(try run(["import-app", export.path, "--output", file, "--force"]).status == 0)

            let server = try await OutpostServerProcess.launch(
                arguments: ["--port", "0", "--data-dir", dir.path("data"), "--config", file])
            #expect(server.banner.contains("app id: todo-abcde"), "\(server.banner)")
            let login = try await server.client.post("/api/client/v2.0/app/todo-abcde/auth/providers/anon-user/login")
            #expect(login.status == 200)
            // The export's API keys were disabled, and stay so.
            let apiKey = try await server.client.post(
                "/api/client/v2.0/app/todo-abcde/auth/providers/api-key/login", json: .object(["key": .string("x")]))
            #expect(apiKey.status == 400, "\(apiKey.text)")
            #expect(try await server.terminate() == 0)
        }
    }

    /// `import-data` killed with SIGKILL in the middle of a file: run again, it finishes from its checkpoint, and every
    /// document is there exactly once.
    @Test func aKilledDataImportResumesWithoutLossOrDuplicates() async throws {
        try await TemporaryDirectory.with("import-data") { dir in
            let server = try await OutpostServerProcess.launch(
                arguments: ["--port", "0", "--data-dir", dir.path("data"), "--admin-key", "import-key"])
            let file = dir.path("Item.json")
            let count = 60_000
            var text = ""
            for i in 0..<count { text += #"{"_id":{"$numberInt":"\#(i)"},"name":"item \#(i)","n":{"$numberLong":"\#(i)"}}"# + "\n" }
            try Data(text.utf8).write(to: URL(fileURLWithPath: file))
            let arguments = ["import-data", file, "--server", "http://127.0.0.1:\(server.port)", "--admin-key", "import-key",
                             "--batch-size", "200"]
            let first = try ChildProcess(executable: try OutpostServerProcess.executableURL(), arguments: arguments,
                                         standardOutput: nil, standardError: nil)
            // Killed once some batches are in (the checkpoint says so), wherever it is then.
            let checkpoint = file + ".outpost-import"
            let deadline = ContinuousClock.now + .seconds(120)
            while !FileManager.default.fileExists(atPath: checkpoint) && first.isRunning && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            let midway = FileManager.default.fileExists(atPath: checkpoint) && first.isRunning
            kill(first.processIdentifier, SIGKILL)
            first.waitUntilExit()
            #expect(midway, "the import was killed before its first batch or after its last")
            #expect(FileManager.default.fileExists(atPath: checkpoint))
            let second = try run(Array(arguments))
            #expect(second.status == 0, "\(second.errors)")
            #expect(second.output.contains("Imported \(count) documents into Item."), "\(second.output)")
            #expect(!FileManager.default.fileExists(atPath: checkpoint))
            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)/api/admin/v1/collections/Item/documents?limit=1")!)
            request.setValue("import-key", forHTTPHeaderField: "X-Admin-Key")
            let (data, _) = try await URLSession.shared.data(for: request)
            let stored = String(decoding: data, as: UTF8.self)
            #expect(JSONValue.parse(stored)?.objectValue?["total"] == .int(Int64(count)), "\(stored)")
            // And out again: export-data writes them all, once each.
            let exported = dir.path("exported.json")
            let export = try run(["export-data", "--collection", "Item", "--output", exported,
                                  "--server", "http://127.0.0.1:\(server.port)", "--admin-key", "import-key"])
            #expect(export.status == 0 && export.output.contains("Exported \(count) documents of Item"), "\(export)")
            let lines = try String(contentsOfFile: exported, encoding: .utf8).split(separator: "\n")
            #expect(lines.count == count && Set(lines.map { JSONValue.parse(String($0))?.objectValue?["_id"] }).count == count)
            #expect(try await server.terminate() == 0)
        }
    }

    /// import-data and export-data refuse bad flags with what was wrong, before reaching any server.
    @Test func dataCommandsRefuseBadFlags() async throws {
        try await TemporaryDirectory.with("data-flags") { dir in
            let file = dir.path("Item.json")
            try Data(#"{"_id": 1}"#.utf8).write(to: URL(fileURLWithPath: file))
            let noKey = try run(["import-data", file, "--data-dir", dir.path("nowhere")])
            #expect(noKey.status != 0 && noKey.errors.contains("no admin key: pass --admin-key"), "\(noKey.errors)")
            let badServer = try run(["export-data", "--collection", "Item", "--server", "not a url", "--admin-key", "k"])
            #expect(badServer.status != 0 && badServer.errors.contains("--server must be a URL, not 'not a url'"),
                    "\(badServer.errors)")
            let badBatch = try run(["import-data", file, "--admin-key", "k", "--batch-size", "0"])
            #expect(badBatch.status != 0 && badBatch.errors.contains("--batch-size must be 1 or more, not 0"),
                    "\(badBatch.errors)")
            let noCollection = try run(["export-data", "--admin-key", "k"])
            #expect(noCollection.status != 0 && noCollection.errors.contains("--collection"), "\(noCollection.errors)")
        }
    }

    @Test func aBadExportWritesNothing() async throws {
        try await TemporaryDirectory.with("import-app") { dir in
            let export = dir.url.appendingPathComponent("backend")
            try AppServicesExportFixtures.write(["root_config.json": #"{"name": "todo", "#], in: export)
            let file = dir.path("outpost-app.json")
            let result = try run(["import-app", export.path, "--output", file])
            #expect(result.status != 0)
            #expect(result.errors.contains("root_config.json: is not valid JSON (it ends early, at line 1)"), "\(result.errors)")
            #expect(!FileManager.default.fileExists(atPath: file))
            let missing = try run(["import-app", dir.path("nowhere"), "--output", file])
            #expect(missing.status != 0 && missing.errors.contains("is not a folder"), "\(missing.errors)")
            let badSecret = try run(["import-app", export.path, "--secret", "novalue"])
            #expect(badSecret.status != 0 && badSecret.errors.contains("--secret takes name=value"), "\(badSecret.errors)")
        }
    }
}

/// Data written by one thread and read by another after a semaphore.
private final class LockedData: @unchecked Sendable {  // guarded by the lock
    private let lock = NSLock()
    private var data = Data()
    func set(_ new: Data) { lock.withLock { data = new } }
    func get() -> Data { lock.withLock { data } }
}
