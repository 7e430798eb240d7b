import Foundation
import OutpostCore

/// The observers of one Realm instance, and the computation of what changed for each of them.
final class Notifier {
    /// One registered observer. `deliver` gets the change set of the new version.
    final class Observer {
        let id: Int
        let onChange: (ChangeSet, RealmInstance) -> Void
        var isActive = true
        init(id: Int, onChange: @escaping (ChangeSet, RealmInstance) -> Void) {
            self.id = id
            self.onChange = onChange
        }
    }

    private var observers: [Observer] = []
    private var nextID = 0
    private var skipped: Set<ObjectIdentifier> = []
    private var skippedObserverIDs: Set<Int> = []

    func add(_ onChange: @escaping (ChangeSet, RealmInstance) -> Void) -> Observer {
        nextID += 1
        let observer = Observer(id: nextID, onChange: onChange)
        observers.append(observer)
        return observer
    }

    func remove(_ observer: Observer) {
        observer.isActive = false
        observers.removeAll { $0 === observer }
    }

    /// Tokens whose observers skip the next commit (`write(withoutNotifying:)`).
    func skip(_ tokens: [NotificationToken]) {
        skippedObserverIDs = Set(tokens.compactMap { tokenObservers[ObjectIdentifier($0)] })
    }
    var tokenObservers: [ObjectIdentifier: Int] = [:]

    /// Delivers a change set to every observer, now or on the Realm's scheduler.
    func deliver(_ changes: ChangeSet, realm: RealmInstance, synchronously: Bool) {
        let targets = observers.filter { !skippedObserverIDs.contains($0.id) }
        guard !targets.isEmpty else { return }
        let run = {
            for observer in targets where observer.isActive { observer.onChange(changes, realm) }
        }
        if synchronously || realm.scheduler == nil {
            run()
        } else {
            let box = UncheckedBox(run)
            realm.scheduler?.schedule { box.value() }
        }
    }
}

/// Carries a non-Sendable value to the thread or queue it belongs to.
struct UncheckedBox<T>: @unchecked Sendable {  // only unwrapped on the owning thread/queue
    let value: T
    init(_ value: T) { self.value = value }
}

extension RealmInstance {
    /// Another instance committed: refresh if automatic, and notify.
    func externalChangeArrived() {
        guard !isInvalidated, !isInWriteTransaction else { return }
        guard autorefresh else {
            notifier.deliver(ChangeSet(), realm: self, synchronously: true)
            return
        }
        guard let changes = try? advance(), !changes.isEmpty else { return }
        notifier.deliver(changes, realm: self, synchronously: true)
    }

    var scheduler: Scheduler? {
        RealmRegistry.shared.scheduler(of: self)
    }
}
