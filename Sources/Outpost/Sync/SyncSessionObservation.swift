import Foundation

#if !canImport(ObjectiveC)
/// Outpost-only on Linux, where Foundation has no key-value observing: the options of
/// ``SyncSession/observe(_:options:changeHandler:)``, with Foundation's names, so that Realm code observing
/// `connectionState` compiles unchanged.
public struct NSKeyValueObservingOptions: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    /// The change carries the new value.
    public static let new = NSKeyValueObservingOptions(rawValue: 1)
    /// The change carries the old value.
    public static let old = NSKeyValueObservingOptions(rawValue: 2)
    /// The handler is called once at once, with the current value.
    public static let initial = NSKeyValueObservingOptions(rawValue: 4)
    /// Accepted; no call is made before a change.
    public static let prior = NSKeyValueObservingOptions(rawValue: 8)
}
#endif

/// A change of an observed `SyncSession` property (the shape of Foundation's `NSKeyValueObservedChange`).
public struct SyncSessionObservedChange<Value: Sendable>: Sendable {
    /// The new value, when the options asked for it (`.new`), and for the initial call (`.initial`).
    public let newValue: Value?
    /// The old value, when the options asked for it (`.old`); nil for the initial call.
    public let oldValue: Value?
    /// Always false: no call is made before a change.
    public let isPrior = false
}

/// Keeps an observation of a `SyncSession` property alive; it ends with ``invalidate()`` or when the token is
/// released (as `NSKeyValueObservation`).
public final class SyncSessionObservation: @unchecked Sendable {
    private weak var session: SyncSession?
    private let id: Int

    init(session: SyncSession, id: Int) {
        self.session = session
        self.id = id
    }

    /// Stops the observation.
    public func invalidate() { session?.removeObserver(id) }

    deinit { invalidate() }
}

extension SyncSession {
    /// Calls `changeHandler` whenever `connectionState` or `state` changes (Realm observes them with key-value
    /// observing, which Linux's Foundation lacks; the call has the same shape, so
    /// `session.observe(\.connectionState, options: [.initial]) { session, change in … }` compiles and behaves the
    /// same). Each change is reported once, in order, with the values before and after it; the handler runs on the
    /// thread that made the change (as key-value observing does) or, when several threads change the session at once,
    /// on the one delivering the changes. Keep the returned token. Outpost-only where the original uses
    /// `NSObject.observe`.
    public func observe<Value: Equatable & Sendable>(
        _ keyPath: KeyPath<SyncSession, Value>, options: NSKeyValueObservingOptions = [],
        changeHandler: @escaping (SyncSession, SyncSessionObservedChange<Value>) -> Void
    ) -> SyncSessionObservation {
        // The value in a snapshot of a change: `state` and `connectionState` from the snapshot, anything else now.
        let read: (SyncSession, StateSnapshot) -> Value = { session, snapshot in
            switch keyPath as AnyKeyPath {
            case \SyncSession.state: return snapshot.state as! Value
            case \SyncSession.connectionState: return snapshot.connectionState as! Value
            default: return session[keyPath: keyPath]
            }
        }
        let observer = SessionObserver { session, old, new in
            let newValue = read(session, new)
            let oldValue = old.map { read(session, $0) }
            if let oldValue, oldValue == newValue { return }
            changeHandler(session, SyncSessionObservedChange(
                newValue: options.contains(.new) || old == nil ? newValue : nil,
                oldValue: options.contains(.old) ? oldValue : nil))
        }
        let id = addObserver(observer)
        if options.contains(.initial) { observer.notify(self, nil, stateSnapshot) }
        return SyncSessionObservation(session: self, id: id)
    }
}

/// One observer of a session: what to call with the observed properties before (nil for the initial call) and after
/// a change.
struct SessionObserver {
    let notify: (SyncSession, SyncSession.StateSnapshot?, SyncSession.StateSnapshot) -> Void

    init(_ notify: @escaping (SyncSession, SyncSession.StateSnapshot?, SyncSession.StateSnapshot) -> Void) {
        self.notify = notify
    }
}
