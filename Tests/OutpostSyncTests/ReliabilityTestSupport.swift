import Foundation
@testable import Outpost
import OutpostCoreTesting
import Testing

/// Runs `body`, throwing ``SyncTestTimeout`` naming `what` when it takes longer than `timeout`. The body is cancelled
/// and not awaited after a timeout, so a hang fails the test instead of stalling it.
func withDeadline<T: Sendable>(
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
