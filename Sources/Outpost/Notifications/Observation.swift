import Foundation
import OutpostCore

/// What one observer does on the instance that delivers to it: its first call (the initial
/// notification, or nothing for object observers) and its calls after each new version.
struct ObserverBody {
    var initial: () -> Void = {}
    /// `changes` since the previous call; `notify` false when the commits skipped this observer;
    /// `isLocal` true when this instance made every commit.
    var change: (_ changes: ChangeSet, _ notify: Bool, _ isLocal: Bool) -> Void
}

extension RealmInstance {
    /// Registers an observer: the one `here` builds on this instance (delivered on its run loop), or,
    /// with a `queue`, the one `there` builds on a Realm confined to that serial queue, re-resolving what
    /// is observed from plain values (class names, rowids, queries): `there` must capture nothing
    /// confined to this thread. Either returns nil when the observed object no longer exists; `onError`
    /// is called on the queue if its Realm cannot be opened.
    func addObserver(on queue: DispatchQueue?, onError: @escaping (Error) -> Void = { _ in },
                     here: () -> ObserverBody?, there: @escaping (RealmInstance) -> ObserverBody?) -> NotificationToken
    {
        verifyAccess()
        verifyNotificationsSupported()
        if let queue { return addQueueObserver(on: queue, onError: onError, there) }
        let state = ObservationState()
        guard let body = here() else { return NotificationToken(state: state) {} }
        notifier.add(state: state, onChange: body.change)
        let target = WeakInstance(self)
        let scheduler = self.scheduler
        let token = NotificationToken(state: state) {
            if let scheduler {
                scheduler.schedule { target.instance?.notifier.remove(state) }
            } else {
                target.instance?.notifier.remove(state)
            }
        }
        // The initial notification comes asynchronously, as in Realm.
        if let scheduler {
            let initial = UncheckedBox(body.initial)
            scheduler.schedule { if !state.isCancelled { initial.value() } }
        } else {
            body.initial()
        }
        FileWatcher.shared.update(path: path)
        return token
    }

    private func addQueueObserver(on queue: DispatchQueue, onError: @escaping (Error) -> Void,
                                  _ make: @escaping (RealmInstance) -> ObserverBody?) -> NotificationToken
    {
        let state = ObservationState()
        let slot = QueueSlot()
        // The configuration, the builder and the user's blocks are only used on `queue` from here on.
        // (Kept in a struct: destructuring a tuple out of the box here over-released the configuration
        // with Swift 6.3.1, crashing when the queue's Realm was deallocated.)
        let carried = UncheckedBox(QueuedObservation(configuration: configuration, make: make, onError: onError))
        queue.async {
            guard !state.isCancelled else { return }
            let configuration = carried.value.configuration
            let make = carried.value.make
            let onError = carried.value.onError
            let instance: RealmInstance
            do {
                instance = try Realm(configuration: configuration, queue: queue).instance
            } catch {
                onError(error)
                return
            }
            guard let body = make(instance) else { return }
            instance.notifier.add(state: state, onChange: body.change)
            slot.instance = instance  // keeps the queue's Realm open while observed
            body.initial()
            FileWatcher.shared.update(path: instance.path)
        }
        return NotificationToken(state: state) {
            queue.async {
                slot.instance?.notifier.remove(state)
                slot.instance = nil
            }
        }
    }
}

/// What a queue observer needs to start on its queue.
private struct QueuedObservation {
    let configuration: Realm.Configuration
    let make: (RealmInstance) -> ObserverBody?
    let onError: (Error) -> Void
}

/// The queue-confined instance an observer lives on; only touched on that queue.
private final class QueueSlot: @unchecked Sendable {  // read and written only inside blocks on one serial queue
    var instance: RealmInstance?
}

extension RealmInstance {
    /// Traps for Realms that never change (Realm's wording).
    func verifyNotificationsSupported() {
        if isFrozen {
            fatalError("Frozen Realms do not change and do not have change notifications.")
        }
    }
}
