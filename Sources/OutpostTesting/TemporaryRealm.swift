import Foundation
import Outpost
import OutpostCoreTesting

/// A fresh directory for a test's Realm files, removed by `remove()` (and in any case with the test process's
/// ``ScratchRoot`` when the process exits).
public struct TemporaryDirectory: Sendable {
    public let url: URL

    public init(_ name: String = #function) {
        url = (try? ScratchRoot.directory("outpost-tests-\(name)"))
            ?? ScratchRoot.url.appendingPathComponent("outpost-tests-\(UUID().uuidString)")
    }

    /// A file URL inside the directory.
    public func file(_ name: String = "test.realm") -> URL {
        url.appendingPathComponent(name)
    }

    /// A configuration for a Realm file inside the directory.
    public func configuration(_ name: String = "test.realm", objectTypes: [ObjectBase.Type]? = nil) -> Realm.Configuration {
        Realm.Configuration(fileURL: file(name), objectTypes: objectTypes)
    }

    public func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}

/// Runs the current thread's run loop until `condition` holds or `timeout` passes; returns whether it held.
@discardableResult
public func spinRunLoop(timeout: TimeInterval = 2, until condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() && Date() < deadline {
        RunLoop.current.run(until: Date().addingTimeInterval(0.005))
    }
    return condition()
}
