import Foundation
import OutpostServerTesting
import Testing

/// The README's demo (`swift run outpost-sync-demo`) runs end to end: the seed page's three writes and the Event
/// Library's events fetched back from the server.
@Suite(.timeLimit(.minutes(3)))
struct SyncDemoTests {
    @Test func theDemoRunsTheSeedStoriesAndShowsTheStoredEvents() async throws {
        let process = Process()
        process.executableURL = try OutpostServerProcess.builtExecutableURL(named: "outpost-sync-demo")
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("outpost-demo-\(UUID().uuidString).log")
        FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        let handle = try FileHandle(forWritingTo: output)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        let deadline = ContinuousClock.now + .seconds(120)
        while process.isRunning && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        if process.isRunning { process.terminate() }
        try handle.close()
        let text = try String(contentsOf: output, encoding: .utf8)
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.contains("Second device now has: [\"Learn Realm CRUD stuff (complexity 3)\"]"))
        #expect(text.components(separatedBy: "A write was rejected with a compensating write error").count == 3,
                "the complexity-7 write and the wrong-owner write come back as compensating writes")
        #expect(text.contains("The server's AuditEvent collection holds 3 event(s):"))
        #expect(text.contains("event: write, activity: rename item, username: Jason Bourne"))
        #expect(text.contains(#"{"newValue":{"itemName":"Learn Realm CRUD stuff, then events"}"#))
        #expect(text.contains("event: custom event, activity: demo, username: Jason Bourne"))
        #expect(text.hasSuffix("Done.\n"))
    }
}
