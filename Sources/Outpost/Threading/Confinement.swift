import Dispatch
import Foundation

/// Where a Realm instance may be used: the thread that opened it, a serial queue, an actor, or
/// anywhere (frozen Realms and Realms opened from a nonisolated async context, which Swift's
/// `Sendable` checking confines instead).
enum Confinement {
    case thread(pthread_t)
    case queue(DispatchQueue, DispatchSpecificKey<UInt8>)
    case actor(any Actor)
    case none

    static func currentThread() -> Confinement {
        .thread(pthread_self())
    }

    @inline(__always)
    func verify() {
        switch self {
        case .thread(let owner):
            if pthread_equal(owner, pthread_self()) == 0 {
                fatalError("Realm accessed from incorrect thread.")
            }
        case .queue(_, let key):
            if DispatchQueue.getSpecific(key: key) == nil {
                fatalError("Realm accessed from incorrect queue.")
            }
        case .actor(let actor):
            actor.preconditionIsolated("Realm accessed from incorrect actor.")
        case .none:
            break
        }
    }

    /// A key identifying the confinement, for the instance cache (one instance per thread, queue or actor).
    var cacheKey: String? {
        switch self {
        case .thread(let t): "thread-\(UInt(t))"
        case .queue(let q, _): "queue-\(ObjectIdentifier(q).hashValue)"
        // The confinement holds the actor, so its identity is not reused while a cached instance lives.
        case .actor(let actor): "actor-\(UInt(bitPattern: ObjectIdentifier(actor)))"
        case .none: nil
        }
    }
}
