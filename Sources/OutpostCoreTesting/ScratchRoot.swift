import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The directory all of one test process's scratch files go under: `outpost-test-run-<pid>` in the system's
/// temporary directory, removed when the process exits, whether or not each test removed its own files.
///
/// A process that dies (a crash, `kill -9`, an exit test's child) cannot remove its directory; a test process
/// removes every `outpost-test-run-<pid>` whose process no longer exists when it first uses the root and again when
/// it exits. So a test run leaves nothing behind in `/tmp`, and a run that died leaves it only until the next.
public enum ScratchRoot {
    /// The prefix of every run's directory name.
    public static let prefix = "outpost-test-run-"

    /// This process's directory, created (and stale ones removed) on first use.
    public static let url: URL = {
        let temporary = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
        removeStale(in: temporary)
        let url = temporary.appendingPathComponent("\(prefix)\(getpid())", isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        atexit {
            try? FileManager.default.removeItem(at: ScratchRoot.url)
            // Also what this run's own children left: exit tests' processes end by crashing, without running
            // their `atexit` handlers, and are gone by now.
            ScratchRoot.removeStale(in: URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true))
        }
        return url
    }()

    /// A new, uniquely named directory under the root: `<label>-<uuid>`, the label kept to its first 60 letters,
    /// digits and hyphens (so any text, a function's name for one, makes a safe name).
    public static func directory(_ label: String) throws -> URL {
        let safe = label.unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) || $0 == "-" }
            .map(String.init).joined()
        let directory = url.appendingPathComponent("\(safe.prefix(60))-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Removes the directories of runs whose process is gone.
    static func removeStale(in temporary: URL) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: temporary.path) else { return }
        for name in names where name.hasPrefix(prefix) {
            guard let pid = Int32(name.dropFirst(prefix.count)), pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH {
                try? FileManager.default.removeItem(at: temporary.appendingPathComponent(name))
            }
        }
    }
}
