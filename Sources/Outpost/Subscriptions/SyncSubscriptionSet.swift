import Foundation
import OutpostCore

/// The subscriptions of a flexible sync Realm (`realm.subscriptions`): the latest committed set. Change it inside
/// `update {}`; the server then sends the matching objects and the set becomes `.complete`.
public final class SyncSubscriptionSet: Sequence {
    let realm: RealmInstance
    private let tracker: SubscriptionTracker
    /// The set's version (0: none committed yet) and its subscriptions, as read.
    private(set) var version: Int64
    private var records: [SubscriptionRecord]
    /// The working copy while `update {}` runs (kept by the Realm instance, so `realm.subscriptions` inside the
    /// block sees it too).
    private var working: [SubscriptionRecord]? {
        get { realm.subscriptionsBeingUpdated }
        set { realm.subscriptionsBeingUpdated = newValue }
    }

    init(realm: RealmInstance) {
        self.realm = realm
        tracker = SyncSessionRegistry.shared.tracker(forPath: realm.path)
        (version, records) = SyncSubscriptionSet.readLatest(realm)
    }

    /// The newest committed set, as the Realm's current read or write sees it (version 0 and no subscriptions when
    /// there is none, or it cannot be read).
    static func readLatest(_ realm: RealmInstance) -> (Int64, [SubscriptionRecord]) {
        guard let latest = try? realm.syncFile.latestSubscriptionSet() else { return (0, []) }
        return latest
    }

    private var current: [SubscriptionRecord] { working ?? records }

    // MARK: Reading

    /// The number of subscriptions.
    public var count: Int { current.count }
    /// Whether the set has no subscriptions.
    public var isEmpty: Bool { current.isEmpty }
    /// The subscription at `index`, in insertion order.
    public subscript(index: Int) -> SyncSubscription? {
        index >= 0 && index < current.count ? SyncSubscription(record: current[index], set: self) : nil
    }
    /// The first subscription.
    public var first: SyncSubscription? { self[0] }
    /// The last subscription.
    public var last: SyncSubscription? { self[current.count - 1] }

    public func makeIterator() -> IndexingIterator<[SyncSubscription]> {
        current.map { SyncSubscription(record: $0, set: self) }.makeIterator()
    }

    /// The subscription with this name.
    public func first(named name: String) -> SyncSubscription? {
        current.first { $0.name == name }.map { SyncSubscription(record: $0, set: self) }
    }

    /// The unnamed-or-named subscription on `type` with exactly this query.
    public func first<T: Object>(ofType type: T.Type, where query: (Query<T>) -> Query<Bool>) -> SyncSubscription? {
        let text = SubscriptionQueryText.text(query(Query<T>()), className: type.className(), realm: realm)
        return current.first { $0.className == type.className() && $0.query == text }
            .map { SyncSubscription(record: $0, set: self) }
    }

    /// The subscription on `type` with exactly this query text.
    public func first<T: Object>(ofType type: T.Type, where predicateFormat: String, _ args: Any...) -> SyncSubscription? {
        let text = SubscriptionQueryText.text(predicateFormat, args, className: type.className(), realm: realm)
        return current.first { $0.className == type.className() && $0.query == text }
            .map { SyncSubscription(record: $0, set: self) }
    }

    /// The set's state: `.pending` until the server sent its objects, then `.complete` (or `.error`, or
    /// `.superseded` once a newer set completed).
    public var state: SyncSubscriptionState {
        if version == 0 { return .complete }
        if let s = tracker.state(version), s.isFinished { return SyncSubscriptionState(s) }
        // Not finished as this process knows: the file knows better when another process syncs it. A version no
        // longer stored was deleted when a newer set completed.
        return SyncSubscriptionState(storedState(version) ?? .superseded)
    }

    private func storedState(_ version: Int64) -> SubscriptionSetState? {
        try? realm.syncFile.subscriptionState(version)
    }

    // MARK: Updating

    /// Changes the subscriptions: `block` appends and removes; the new set is committed when it returns.
    /// `onComplete` is called once the server sent the matching objects, or with the error if it refused the set.
    public func update(_ block: () -> Void, onComplete: ((Error?) -> Void)? = nil) {
        let version = commitUpdate(block)
        guard let onComplete else { return }
        tracker.wait(version) { state in onComplete(Self.completionError(state)) }
    }

    /// Changes the subscriptions and waits until the server sent the matching objects. Throws
    /// `Realm.Error.subscriptionFailed` with the server's message when it refused the set.
    ///
    /// Runs on the caller's actor (`isolation`, as Realm Swift's): a Realm opened on the main actor or a custom
    /// actor is used there only, so `block` and the refresh afterwards pass its confinement check.
    public func update(_ block: () -> Void, isolation: isolated (any Actor)? = #isolation) async throws {
        let version = commitUpdate(block)
        let tracker = self.tracker
        let error: Error? = await withCheckedContinuation { continuation in
            tracker.wait(version) { state in continuation.resume(returning: Self.completionError(state)) }
        }
        if let error { throw error }
        // The objects the server sent are visible when this returns.
        if !realm.isInWriteTransaction && !realm.isFrozen { _ = Realm(instance: realm).refresh() }
    }

    static func completionError(_ state: SubscriptionSetState) -> Error? {
        if case .error(let message) = state { return Realm.Error(.subscriptionFailed, message) }
        return nil
    }

    /// Runs the block on a working copy and commits a new version (returned).
    @discardableResult
    func commitUpdate(_ block: () -> Void) -> Int64 {
        updateIfChanged { block(); return true }!
    }

    /// Runs the block on a working copy; commits a new version (returned) only when the block returns true.
    func updateIfChanged(_ block: () -> Bool) -> Int64? {
        realm.verifyAccess()
        if working != nil {
            fatalError("Cannot initiate a write transaction on subscription set that is already being updated.")
        }
        (version, records) = Self.readLatest(realm)
        working = records
        let changed = block()
        let result = working!
        working = nil
        guard changed else { return nil }
        let inWrite = realm.isInWriteTransaction
        var newVersion = version + 1
        do {
            if !inWrite { try realm.beginWrite() }
            // The version is numbered in the write, after the newest set: this Realm's read may be older than a set
            // another thread or process committed since. Like the original's update of an older set, the new set
            // is what the block made of the set it saw.
            let file = realm.syncFile
            newVersion = Swift.max(version, try file.latestSubscriptionVersion()) + 1
            try file.insertSubscriptionSet(newVersion, result)
            if !inWrite { try realm.commitWrite() }
        } catch {
            if !inWrite && realm.isInWriteTransaction { realm.cancelWrite() }
            fatalError("Could not commit the subscription set: \(error)")
        }
        version = newVersion
        records = result
        tracker.set(newVersion, .pending)
        SyncSessionRegistry.shared.localChange(path: realm.path)
        return newVersion
    }

    /// Removes working records matching `predicate` (inside an update).
    func removeRecords(where predicate: (SubscriptionRecord) -> Bool) {
        requireUpdating()
        working!.removeAll(where: predicate)
    }

    func requireUpdating() {
        if working == nil {
            fatalError("Can only add, remove, or update subscriptions within a write subscription block.")
        }
    }

    /// Adds subscriptions (only inside `update {}`). An identical unnamed query is not added twice; a name that
    /// exists is an error.
    public func append<T: Object>(_ subscriptions: QuerySubscription<T>...) {
        requireUpdating()
        for s in subscriptions { append(name: s.name, className: T.className(), query: s.query(realm)) }
    }

    func append(name: String?, className: String, query: String) {
        requireUpdating()
        if let name {
            if working!.contains(where: { $0.name == name }) {
                fatalError("A subscription named '\(name)' already exists. If you meant to update the existing "
                    + "subscription please use the `update` method.")
            }
        } else if working!.contains(where: { $0.name == nil && $0.className == className && $0.query == query }) {
            return
        }
        working!.append(SubscriptionRecord(name: name, className: className, query: query))
    }

    /// Adds or replaces (by name) a subscription; returns false when an identical one existed. For
    /// `Results.subscribe`.
    func upsert(name: String?, className: String, query: String) -> Bool {
        requireUpdating()
        if let name, let i = working!.firstIndex(where: { $0.name == name }) {
            if working![i].query == query && working![i].className == className { return false }
            working![i].query = query
            working![i].className = className
            working![i].updatedAt = Date()
            return true
        }
        if working!.contains(where: { $0.name == name && $0.className == className && $0.query == query }) { return false }
        working!.append(SubscriptionRecord(name: name, className: className, query: query))
        return true
    }

    func replaceQuery(of record: SubscriptionRecord, with query: String) {
        guard let i = working!.firstIndex(of: record) else { return }
        working![i].query = query
        working![i].updatedAt = Date()
    }

    /// Removes the subscription with this name (only inside `update {}`).
    public func remove(named name: String) {
        requireUpdating()
        working!.removeAll { $0.name == name }
    }

    /// Removes these subscriptions (only inside `update {}`).
    public func remove(_ subscriptions: SyncSubscription...) {
        requireUpdating()
        for s in subscriptions { working!.removeAll { $0 == s.record } }
    }

    /// Removes the subscription on `type` with exactly this query (only inside `update {}`).
    public func remove<T: Object>(ofType type: T.Type, _ query: (Query<T>) -> Query<Bool>) {
        requireUpdating()
        let text = SubscriptionQueryText.text(query(Query<T>()), className: type.className(), realm: realm)
        working!.removeAll { $0.className == type.className() && $0.query == text }
    }

    /// Removes the subscription on `type` with exactly this query text (only inside `update {}`).
    public func remove<T: Object>(ofType type: T.Type, where predicateFormat: String, _ args: Any...) {
        requireUpdating()
        let text = SubscriptionQueryText.text(predicateFormat, args, className: type.className(), realm: realm)
        working!.removeAll { $0.className == type.className() && $0.query == text }
    }

    /// Removes every subscription on `type` (only inside `update {}`).
    public func removeAll<T: Object>(ofType type: T.Type) {
        requireUpdating()
        working!.removeAll { $0.className == type.className() }
    }

    /// Removes every subscription, or only the unnamed ones (only inside `update {}`).
    public func removeAll(unnamedOnly: Bool = false) {
        requireUpdating()
        working!.removeAll { !unnamedOnly || $0.name == nil }
    }
}
