import Foundation
import OutpostCore

/// When `Results.subscribe` waits for the server.
public enum WaitForSyncMode: Sendable {
    /// Wait only when the subscription is new.
    case onCreation
    /// Wait every time.
    case always
    /// Never wait.
    case never
}

extension Results where Element: Object {
    /// Subscribes to this query (flexible sync) and, depending on `waitForSync`, waits until the server sent the
    /// matching objects. An unnamed identical query is not added twice; a known name with another query replaces
    /// that query. Throws `Realm.Error.subscriptionFailed` when the server refuses the query, and a POSIX
    /// `ETIMEDOUT` error ("Waiting for update timed out after 1.0 seconds.") when `timeout` passes first.
    ///
    /// Runs on the caller's actor (`isolation`), where the Realm is confined.
    public func subscribe(name: String? = nil, waitForSync: WaitForSyncMode = .onCreation,
                          timeout: TimeInterval? = nil, isolation: isolated (any Actor)? = #isolation)
        async throws -> Results<Element>
    {
        let subscriptions = SyncSubscriptionSet(realm: instance)
        let text = subscriptionQueryText
        var created = false
        let version = subscriptions.updateIfChanged {
            created = subscriptions.upsert(name: name, className: Element.className(), query: text)
            return created
        }
        let shouldWait = waitForSync == .always || (waitForSync == .onCreation && created)
        guard shouldWait else { return self }
        let tracker = SyncSessionRegistry.shared.tracker(forPath: instance.path)
        let path = instance.path
        let target = version ?? subscriptions.version
        let state: SubscriptionSetState = try await SyncWaiting.withTimeout(timeout) {
            await withCheckedContinuation { continuation in
                tracker.wait(target) { continuation.resume(returning: $0) }
            }
        }
        if let error = SyncSubscriptionSet.completionError(state) { throw error }
        // With `.always` and an existing subscription, also wait for everything the server has now.
        if !created, let session = SyncSessionRegistry.shared.session(forPath: path) {
            try await SyncWaiting.withTimeout(timeout) { try await session.wait(for: .download) }
        }
        // The objects the server sent are visible in the returned Results.
        if !instance.isInWriteTransaction && !instance.isFrozen { _ = Realm(instance: instance).refresh() }
        return self
    }

    /// Removes the subscription for this query (unnamed, or with the name it was subscribed with), without waiting.
    public func unsubscribe() {
        let subscriptions = SyncSubscriptionSet(realm: instance)
        let text = subscriptionQueryText
        let className = Element.className()
        guard subscriptions.contains(where: { $0.objectClassName == className && $0.queryString == text }) else { return }
        subscriptions.commitUpdate {
            subscriptions.removeRecords { $0.className == className && $0.query == text }
        }
    }

    /// This Results' filters as one subscription query (`TRUEPREDICATE` when unfiltered).
    var subscriptionQueryText: String {
        // The server knows classes, not one object's list: a query over a list would widen to the whole class.
        precondition(source == .table,
                     "Cannot subscribe to results of a list or set: a subscription is a query on a class (realm.objects(_:)).")
        let parts = query.filters.map { SubscriptionQueryText.bind($0.predicate, $0.arguments, className: table.className, realm: instance) }
        switch parts.count {
        case 0: return "TRUEPREDICATE"
        case 1: return parts[0]
        default: return parts.map { "(\($0))" }.joined(separator: " AND ")
        }
    }
}

