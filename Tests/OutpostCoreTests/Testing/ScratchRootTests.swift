import Foundation
import Testing
@testable import OutpostCoreTesting

/// The test processes' scratch root: one directory per process, and what dead runs leave is removed.
@Suite struct ScratchRootTests {
    @Test func directoriesAreNewAndInsideTheProcessRoot() throws {
        let a = try ScratchRoot.directory("label with spaces/and slashes")
        let b = try ScratchRoot.directory("label with spaces/and slashes")
        defer {
            try? FileManager.default.removeItem(at: a)
            try? FileManager.default.removeItem(at: b)
        }
        #expect(a != b)
        #expect(a.deletingLastPathComponent().standardizedFileURL == ScratchRoot.url.standardizedFileURL)
        #expect(ScratchRoot.url.lastPathComponent == "outpost-test-run-\(getpid())")
        #expect(a.lastPathComponent.hasPrefix("labelwithspacesandslashes-"))
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: a.path, isDirectory: &isDirectory) && isDirectory.boolValue)
    }

    @Test func removesTheRootsOfDeadRunsOnly() throws {
        let parent = try ScratchRoot.directory("stale")
        defer { try? FileManager.default.removeItem(at: parent) }
        // A process that has exited: its pid names no process any more (it has been reaped).
        // (Started with posix_spawn: Foundation's Process.run() crashes now and then on Linux, see ChildProcess.)
        var exited: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/true"), nil]
        defer { free(argv[0]) }
        #expect(posix_spawn(&exited, "/bin/true", nil, nil, argv, environ) == 0)
        var status: Int32 = 0
        #expect(waitpid(exited, &status, 0) == exited)
        let names = [
            "outpost-test-run-\(exited)",  // dead: removed
            "outpost-test-run-\(getpid())",  // this process: kept
            "outpost-test-run-\(getppid())",  // alive: kept
            "outpost-test-run-notapid",  // not a run's name: kept
            "something-else",  // kept
        ]
        for name in names {
            try FileManager.default.createDirectory(at: parent.appendingPathComponent(name).appendingPathComponent("inner"),
                                                    withIntermediateDirectories: true)
        }
        ScratchRoot.removeStale(in: parent)
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: parent.path))
        #expect(left == Set(names.dropFirst()))
    }
}
