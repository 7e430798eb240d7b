import Foundation
import OutpostCore

/// The sync session's own connection to its Realm file: a Realm instance confined to a private serial queue,
/// used to read the upload queue and to apply downloads (which other instances then see as ordinary commits,
/// with notifications).
final class SyncDatabase: @unchecked Sendable {  // `instance` is only touched on `queue`
    let queue: DispatchQueue
    private let configuration: Realm.Configuration
    private var instance: RealmInstance?

    init(configuration: Realm.Configuration) {
        var configuration = configuration
        configuration.isInternalWorker = true
        self.configuration = configuration
        queue = DispatchQueue(label: "outpost.sync.database")
    }

    /// Runs `body` on the queue with the instance, refreshed to the latest version.
    func perform<T: Sendable>(_ body: @escaping @Sendable (RealmInstance) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                do {
                    let instance = try self.open()
                    if !instance.isInWriteTransaction { try instance.advance() }
                    continuation.resume(returning: try body(instance))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    /// Rolls back the bootstrap stream `id` if it is still open on the instance, as soon as the queue is free (from
    /// any thread: a writer about to wait for the stream's transaction, ``BootstrapStream``).
    func cancelBootstrapStream(_ id: ObjectIdentifier) {
        queue.async { self.instance?.syncCancelBootstrapStream(id) }
    }

    /// Closes the instance (on the queue).
    func close() {
        queue.async { self.instance = nil }
    }

    /// Closes the instance and returns once it is closed (not from the queue itself).
    func closeNow() {
        queue.sync { self.instance = nil }
    }

    private func open() throws -> RealmInstance {
        if let instance { return instance }
        let key = DispatchSpecificKey<UInt8>()
        queue.setSpecific(key: key, value: 1)
        let opened = try RealmInstance.open(configuration: configuration, confinement: .queue(queue, key), scheduler: nil)
        instance = opened
        return opened
    }
}
