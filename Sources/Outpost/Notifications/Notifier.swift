import Foundation
import OutpostCore

/// The observers of one Realm instance. Each collection or object observer accumulates the changes of
/// the commits it has not seen yet; `flush` hands them over, now or on the instance's next run-loop turn
/// or queue block. Realm observers (`Realm.observe`) are called synchronously.
final class Notifier {
    /// One collection or object observer.
    final class Observer {
        let state: ObservationState
        /// Called with the changes since its previous call. `notify` is false when every commit in them
        /// skipped this observer (`write(withoutNotifying:)`): it then only updates what it remembers.
        /// `isLocal` is true when every commit in them was made by this instance.
        let onChange: (_ changes: ChangeSet, _ notify: Bool, _ isLocal: Bool) -> Void
        var pending: ChangeSet?
        var pendingNotifies = false
        var pendingIsLocal = true

        init(state: ObservationState, onChange: @escaping (ChangeSet, Bool, Bool) -> Void) {
            self.state = state
            self.onChange = onChange
        }
    }

    /// One `Realm.observe` block.
    struct RealmObserver {
        let state: ObservationState
        let block: (Realm.Notification) -> Void
    }

    private var observers: [Observer] = []
    private var realmObservers: [RealmObserver] = []
    private var flushScheduled = false
    /// Tokens whose observers skip the commit being made (`write(withoutNotifying:)`).
    private var skipped: Set<ObjectIdentifier> = []

    /// Whether anything observes this instance (the file watcher runs only then).
    var hasObservers: Bool { !observers.isEmpty || !realmObservers.isEmpty }

    func add(state: ObservationState, onChange: @escaping (ChangeSet, Bool, Bool) -> Void) {
        observers.append(Observer(state: state, onChange: onChange))
    }

    func addRealmObserver(state: ObservationState, block: @escaping (Realm.Notification) -> Void) {
        realmObservers.append(RealmObserver(state: state, block: block))
    }

    func remove(_ state: ObservationState) {
        observers.removeAll { $0.state === state || $0.state.isCancelled }
        realmObservers.removeAll { $0.state === state || $0.state.isCancelled }
    }

    /// Sets the tokens the next local commit does not notify.
    func skip(_ tokens: [NotificationToken]) {
        skipped = Set(tokens.map { ObjectIdentifier($0.state) })
    }

    /// Records a new version's changes for every observer, and hands them over now (`synchronously`)
    /// or on the instance's next run-loop turn or queue block.
    func deliver(_ changes: ChangeSet, realm: RealmInstance, synchronously: Bool, isLocal: Bool = false) {
        guard !changes.isEmpty, !observers.isEmpty else { return }
        for observer in observers where !observer.state.isCancelled {
            if observer.pending == nil { observer.pending = changes } else { observer.pending!.merge(changes) }
            if !skipped.contains(ObjectIdentifier(observer.state)) { observer.pendingNotifies = true }
            if !isLocal { observer.pendingIsLocal = false }
        }
        if synchronously || realm.scheduler == nil {
            flush(realm)
        } else {
            scheduleFlush(realm)
        }
    }

    /// Schedules a flush on the instance's scheduler unless one is already scheduled.
    func scheduleFlush(_ realm: RealmInstance) {
        guard !flushScheduled, let scheduler = realm.scheduler else { return }
        flushScheduled = true
        let target = WeakInstance(realm)
        scheduler.schedule {
            guard let instance = target.instance else { return }
            instance.notifier.flushScheduled = false
            instance.notifier.flush(instance)
        }
    }

    /// Hands pending changes to their observers (not inside a write transaction: the commit flushes).
    func flush(_ realm: RealmInstance) {
        guard !realm.isInWriteTransaction, !realm.isInvalidated else { return }
        observers.removeAll { $0.state.isCancelled }
        for observer in observers {
            guard let changes = observer.pending, !observer.state.isCancelled else { continue }
            let notify = observer.pendingNotifies
            let isLocal = observer.pendingIsLocal
            observer.pending = nil
            observer.pendingNotifies = false
            observer.pendingIsLocal = true
            observer.onChange(changes, notify, isLocal)
        }
    }

    /// Calls every `Realm.observe` block, but those whose tokens the commit being made skips.
    func notifyRealmObservers(_ notification: Realm.Notification) {
        realmObservers.removeAll { $0.state.isCancelled }
        for observer in realmObservers where !observer.state.isCancelled && !skipped.contains(ObjectIdentifier(observer.state)) {
            observer.block(notification)
        }
    }
}

/// Carries a non-Sendable value to the thread or queue it belongs to.
struct UncheckedBox<T>: @unchecked Sendable {  // only unwrapped on the owning thread/queue
    let value: T
    init(_ value: T) { self.value = value }
}

/// A weak reference to an instance, carried to its own thread or queue.
final class WeakInstance: @unchecked Sendable {  // `instance` is only dereferenced on the instance's thread/queue
    weak var instance: RealmInstance?
    init(_ instance: RealmInstance?) { self.instance = instance }
}

extension RealmInstance {
    /// Another instance (or process) committed: refresh if automatic, and notify.
    func externalChangeArrived() {
        guard !isInvalidated, !isInWriteTransaction, !isFrozen else { return }
        guard autorefresh else {
            notifier.notifyRealmObservers(.refreshRequired)
            return
        }
        guard let changes = try? advance(), !changes.isEmpty else { return }
        notifier.deliver(changes, realm: self, synchronously: true)
        notifier.notifyRealmObservers(.didChange)
    }

    var scheduler: Scheduler? {
        RealmRegistry.shared.scheduler(of: self)
    }
}
