import Foundation
import Synchronization

/// A clock that tests move by hand, so token expiry is tested without sleeping.
///
/// ```swift
/// let clock = TestClock()
/// try await withTestServer(clock: clock.now) { server in …; clock.advance(by: 3600); … }
/// ```
public final class TestClock: Sendable {
    private let current: Mutex<Date>

    public init(_ start: Date = Date(timeIntervalSince1970: 1_750_000_000)) {
        current = Mutex(start)
    }

    /// The current time, as a `@Sendable () -> Date` to inject.
    public var now: @Sendable () -> Date {
        { [self] in current.withLock { $0 } }
    }

    /// Moves the clock forward.
    public func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}
