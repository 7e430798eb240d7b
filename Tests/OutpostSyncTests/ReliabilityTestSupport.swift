import Foundation
@testable import Outpost
import OutpostCoreTesting
import Testing

/// Runs `body`, throwing ``SyncTestTimeout`` naming `what` when it takes longer than `timeout`, and never less than
/// ``testPatience``: the deadline only turns a hang into a failure. The body is cancelled and not awaited after a
/// timeout, so a hang fails the test instead of stalling it.
///
/// The floor is there because every sync test of a process runs at once on CI's two cores: a wait that takes
/// milliseconds alone has been seen to take 20–30 s with the machine also loaded (`stress --cpu 2`), its session
/// making steady progress with seconds between messages. A test that expects the timeout uses ``expectTimeout(_:_:_:)``.
func withDeadline<T: Sendable>(
    _ timeout: Duration, _ what: String, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let timeout = max(timeout, testPatience)
    return try await SyncWaiting.race(timeout, failure: { SyncTestTimeout(description: "\(what) did not finish within \(timeout)") }, body)
}

/// Runs `body` for `timeout` exactly, for a test that expects it not to finish: throws ``SyncTestTimeout`` then.
func expectTimeout<T: Sendable>(
    _ timeout: Duration, _ what: String, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await SyncWaiting.race(timeout, failure: { SyncTestTimeout(description: "\(what) did not finish within \(timeout)") }, body)
}

/// `count` new `ConvergenceItem`s committed on `writer` in one transaction and uploaded; their notes by key.
func uploadItems(_ count: Int, from writer: Realm) async throws -> [ObjectId: String] {
    var expected: [ObjectId: String] = [:]
    try writer.write {
        for n in 0..<count {
            let item = ConvergenceItem()
            item.note = "item \(n)"
            item.count = n
            expected[item._id] = item.note
            writer.add(item)
        }
    }
    let upload = writer.syncSession!
    try await withDeadline(.seconds(60), "the upload") { try await upload.wait(for: .upload) }
    return expected
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
