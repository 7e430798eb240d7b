import Foundation
@testable import Outpost
import Testing

/// SplitMix64: a tiny seeded generator, so a reliability run is reproducible from the seed it prints.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound`.
    mutating func int(_ bound: Int) -> Int { Int.random(in: 0..<bound, using: &self) }

    /// True with probability `percent` / 100.
    mutating func chance(_ percent: Int) -> Bool { int(100) < percent }

    /// One element of a non-empty array.
    mutating func pick<T>(_ items: [T]) -> T { items[int(items.count)] }
}

/// Runs `body`, throwing ``SyncTestTimeout`` naming `what` when it takes longer than `timeout`. The body is not
/// awaited after a timeout (a sync wait cannot be cancelled), so a hang fails the test instead of stalling it.
func withDeadline<T: Sendable>(
    _ timeout: Duration, _ what: String, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await SyncWaiting.race(timeout, failure: { SyncTestTimeout(description: "\(what) did not finish within \(timeout)") }, body)
}

/// Two files of one user ("devices"), both subscribed to every `ConvergenceItem` and downloaded before returning.
func openTwoDevices(_ user: User) async throws -> (Realm, Realm) {
    var config = user.flexibleSyncConfiguration(initialSubscriptions: { subscriptions in
        subscriptions.append(QuerySubscription<ConvergenceItem>(name: "all"))
    })
    config.objectTypes = [ConvergenceItem.self]
    let a = try await Realm(configuration: config, downloadBeforeOpen: .always)
    var secondConfig = config
    secondConfig.fileURL = config.fileURL!.deletingLastPathComponent().appendingPathComponent("b.realm")
    let b = try await Realm(configuration: secondConfig, downloadBeforeOpen: .always)
    return (a, b)
}
