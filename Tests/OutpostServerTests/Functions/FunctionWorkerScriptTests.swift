import Foundation
import Testing

/// The function worker's own tests (`worker-test.js`: the protocol, BSON and EJSON, the context, refusals), run
/// with Node.js against the worker script in the source tree.
@Suite struct FunctionWorkerScriptTests {
    @Test func theWorkersOwnTestsPass() throws {
        let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let root = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let worker = root.appendingPathComponent("Sources/OutpostServer/Functions/Runtime/function-worker.js")
        let node = ["/usr/bin/node", "/usr/local/bin/node", "/usr/bin/nodejs"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        guard let node else {
            // CI installs Node.js (.ci/run); a laptop without it cannot run functions at all.
            if ProcessInfo.processInfo.environment["CI"] != nil { Issue.record("Node.js is not installed") }
            return
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: node)
        process.arguments = [here.appendingPathComponent("worker-test.js").path, worker.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.contains("ok "), "\(text)")
    }
}
