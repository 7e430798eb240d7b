import Foundation
import OutpostServerTesting
import Synchronization
import Testing

/// The test support's reader of child-process pipes (a thread per pipe instead of a dispatch source).
@Suite struct PipeDrainTests {
    /// Everything the child writes arrives, in order, and the end is reported once, after the last chunk.
    @Test func readsEverythingInOrderAndReportsTheEndOnce() async throws {
        let pipe = Pipe()
        // 20,000 numbered lines (≈ 130 KB, more than one pipe buffer and one read), written in bursts.
        let process = try ChildProcess(
            executable: URL(fileURLWithPath: "/bin/sh"),
            arguments: ["-c", "i=0; while [ $i -lt 20000 ]; do echo \"line $i\"; i=$((i+1)); done"],
            standardOutput: pipe)
        let received = Mutex(Data())
        let ends = Mutex([Int]())  // the byte count seen when each end was reported
        PipeDrain.start(pipe.fileHandleForReading, onData: { data in received.withLock { $0.append(data) } },
                        onEnd: { let count = received.withLock { $0.count }; ends.withLock { $0.append(count) } })
        let deadline = ContinuousClock.now + .seconds(60)
        while ends.withLock({ $0.isEmpty }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        try await Task.sleep(for: .milliseconds(100))  // a second end would arrive now
        let text = String(decoding: received.withLock { $0 }, as: UTF8.self)
        let expected = (0..<20_000).map { "line \($0)\n" }.joined()
        #expect(text == expected)
        #expect(ends.withLock { $0 } == [expected.utf8.count])
    }

    /// A child that writes nothing and exits: the end is reported with no data.
    @Test func aSilentChildEndsWithNoData() async throws {
        let pipe = Pipe()
        let process = try ChildProcess(executable: URL(fileURLWithPath: "/bin/true"), arguments: [],
                                       standardOutput: pipe)
        let chunks = Mutex(0)
        let ended = Mutex(false)
        PipeDrain.start(pipe.fileHandleForReading, onData: { _ in chunks.withLock { $0 += 1 } },
                        onEnd: { ended.withLock { $0 = true } })
        let deadline = ContinuousClock.now + .seconds(30)
        while !ended.withLock({ $0 }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(ended.withLock { $0 })
        #expect(chunks.withLock { $0 } == 0)
    }
}
