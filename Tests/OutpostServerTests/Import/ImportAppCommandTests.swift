import Foundation
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
