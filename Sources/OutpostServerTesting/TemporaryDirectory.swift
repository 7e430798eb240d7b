import Foundation
import OutpostCoreTesting

/// A fresh, uniquely named directory for a test's database files, under the test process's ``ScratchRoot`` (so it
/// goes when the process exits even if the test did not remove it).
///
/// ```swift
/// try await TemporaryDirectory.with { directory in
///     let storage = try SQLiteStorage(path: directory.path("server.sqlite"))
///     …
/// }   // removed here
/// ```
public struct TemporaryDirectory: Sendable {
    public let url: URL

    /// Creates the directory (`outpost-server-<label>-<uuid>`).
    public init(_ label: String = "test") throws {
        url = try ScratchRoot.directory("outpost-server-\(label.prefix(40))")
    }

    /// The path of a file inside the directory.
    public func path(_ name: String) -> String {
        url.appendingPathComponent(name).path
    }

    /// Deletes the directory and everything in it.
    public func remove() {
        try? FileManager.default.removeItem(at: url)
    }

    /// Runs `body` with a new directory and removes the directory afterwards, also when `body` throws.
    public static func with<T>(_ label: String = "test", _ body: (TemporaryDirectory) async throws -> T) async throws -> T {
        let directory = try TemporaryDirectory(label)
        defer { directory.remove() }
        return try await body(directory)
    }
}
