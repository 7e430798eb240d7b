import Foundation
import OutpostServerTesting
import Testing

/// The README's demo (`swift run outpost-sync-demo`) runs end to end: the seed page's three writes and the Event
/// Library's events fetched back from the server.
@Suite(.timeLimit(.minutes(3)))
struct SyncDemoTests {
    @Test func theDemoRunsTheSeedStoriesAndShowsTheStoredEvents() async throws {
        let pipe = Pipe()  // standard output and error, both
        let process = try ChildProcess(
            executable: try OutpostServerProcess.builtExecutableURL(named: "outpost-sync-demo"), arguments: [],
            standardOutput: pipe, standardError: pipe)
        let output = KillTests.LockedValue(Data())
        let ended = KillTests.LockedValue(false)
        PipeDrain.start(pipe.fileHandleForReading, name: "sync demo output",
                        onData: { data in output.withLock { $0.append(data) } }, onEnd: { ended.withLock { $0 = true } })
        let deadline = ContinuousClock.now + .seconds(120)
        while process.isRunning && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        if process.isRunning { process.terminate() }
        while !ended.withLock({ $0 }) && ContinuousClock.now < deadline + .seconds(10) { try await Task.sleep(for: .milliseconds(20)) }
        let text = String(decoding: output.withLock { $0 }, as: UTF8.self)
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
