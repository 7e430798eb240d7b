import Foundation
import Synchronization

/// Every open Realm instance in the process, by file: used to reuse a thread's instance (as Realm
/// does), and to tell the other instances of a file that a commit happened so they refresh and
/// notify on their own thread, run loop or queue.
final class RealmRegistry: Sendable {
    static let shared = RealmRegistry()

    /// A weak reference to an instance with the means to reach its thread.
    private struct Entry: @unchecked Sendable {  // the instance is only touched on its own thread/queue
        weak var instance: RealmInstance?
        let id: ObjectIdentifier
        let path: String
        let cacheKey: String?
        let scheduler: Scheduler?
    }

    private let entries = Mutex<[Entry]>([])

    func register(_ instance: RealmInstance, scheduler: Scheduler?) {
        let entry = Entry(instance: instance, id: ObjectIdentifier(instance), path: instance.path,
                          cacheKey: instance.confinement.cacheKey, scheduler: scheduler)
        // Never load a weak reference under the lock: a temporary strong reference could be the last
        // one, and the instance's deinit (which unregisters) would then re-enter the lock.
        entries.withLock { $0.append(entry) }
        if scheduler != nil, !instance.isFrozen { FileWatcher.shared.update(path: instance.path) }
    }

    /// Whether a live instance of `path` has a scheduler (can refresh or notify on its own).
    func hasScheduledInstance(path: String) -> Bool {
        let candidates = entries.withLock { list in list.filter { $0.path == path && $0.scheduler != nil } }
        return candidates.contains { $0.instance != nil }
    }

    func unregister(_ instance: RealmInstance) {
        let id = ObjectIdentifier(instance)
        entries.withLock { $0.removeAll { $0.id == id } }
    }

    /// The live instance for `path` confined like `confinement` (same thread or queue), if any.
    func cached(path: String, cacheKey: String?) -> RealmInstance? {
        guard let cacheKey else { return nil }
        let candidates = entries.withLock { list in list.filter { $0.path == path && $0.cacheKey == cacheKey } }
        for candidate in candidates {
            if let instance = candidate.instance, !instance.isFrozen { return instance }
        }
        return nil
    }

    /// The scheduler registered for an instance.
    func scheduler(of instance: RealmInstance) -> Scheduler? {
        let id = ObjectIdentifier(instance)
        return entries.withLock { list in list.first { $0.id == id }?.scheduler }
    }

    /// The configurations of the app's instances open now (one per file; not the library parts' own).
    func openConfigurations() -> [Realm.Configuration] {
        let candidates = entries.withLock { $0 }
        var seen = Set<String>()
        var out: [Realm.Configuration] = []
        for candidate in candidates {
            guard let instance = candidate.instance, !instance.isFrozen, !instance.configuration.isInternalWorker,
                  seen.insert(candidate.path).inserted
            else { continue }
            out.append(instance.configuration)
        }
        return out
    }

    /// Whether the app has a live instance of `path` it can use: not frozen, not a library part's own, not one whose
    /// open has not returned yet (``RealmInstance/isStillOpening``).
    func hasUsableAppInstance(path: String) -> Bool {
        let candidates = entries.withLock { list in list.filter { $0.path == path } }
        return candidates.contains { candidate in
            guard let instance = candidate.instance else { return false }
            return !instance.isFrozen && !instance.configuration.isInternalWorker
                && !instance.isStillOpening.load(ordering: .acquiring)
        }
    }

    /// How many live instances of `path` the app itself has open: not frozen ones, not a library part's own.
    func openAppInstanceCount(path: String) -> Int {
        let candidates = entries.withLock { list in list.filter { $0.path == path } }
        return candidates.filter { candidate in
            guard let instance = candidate.instance else { return false }
            return !instance.isFrozen && !instance.configuration.isInternalWorker
        }.count
    }

    /// Number of live instances open on `path`, frozen ones included.
    func openCount(path: String) -> Int {
        let candidates = entries.withLock { list in list.filter { $0.path == path } }
        return candidates.filter { $0.instance != nil }.count
    }

    /// Schedules a refresh on every other instance of the same file that has a scheduler.
    func didCommit(from source: RealmInstance) {
        let sourceID = ObjectIdentifier(source)
        let path = source.path
        let targets = entries.withLock { list in
            list.filter { $0.path == path && $0.id != sourceID && $0.scheduler != nil }
        }
        for target in targets {
            let box = target
            target.scheduler?.schedule {
                box.instance?.externalChangeArrived()
            }
        }
    }

    /// Schedules a refresh on every instance of `path` (changes from another process).
    func externalChange(path: String) {
        // The parts of the library that watch files hear of it first (another process may have queued uploads for
        // this process's sync session).
        for observer in RealmFileObservers.all { observer.fileDidChangeExternally(path: path) }
        let targets = entries.withLock { list in list.filter { $0.path == path && $0.scheduler != nil } }
        for target in targets {
            let box = target
            target.scheduler?.schedule { box.instance?.externalChangeArrived() }
        }
    }
}

/// Runs work on the thread, run loop, queue or actor a Realm instance is confined to.
enum Scheduler: @unchecked Sendable {  // RunLoop is thread-safe for `perform`
    case runLoop(RunLoop)
    case queue(DispatchQueue)
    case actor(ActorScheduler)

    func schedule(_ work: @escaping @Sendable () -> Void) {
        switch self {
        case .runLoop(let loop):
            loop.perform(work)  // wakes the loop on both Foundation implementations
        case .queue(let q): q.async(execute: work)
        case .actor(let scheduler): scheduler.schedule(work)
        }
    }
}

/// Runs work isolated to an actor, in the order it was scheduled: each piece goes into a queue that a task on the
/// actor drains (tasks started from outside the actor may begin in any order; the queue keeps the work's).
final class ActorScheduler: Sendable {
    let actor: any Actor
    private let pending = Mutex<[@Sendable () -> Void]>([])

    init(_ actor: any Actor) {
        self.actor = actor
    }

    func schedule(_ work: @escaping @Sendable () -> Void) {
        pending.withLock { $0.append(work) }
        Task { await Self.drain(self, on: actor) }
    }

    private static func drain(_ scheduler: ActorScheduler, on actor: isolated any Actor) {
        while let work = scheduler.pending.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { work() }
    }
}
