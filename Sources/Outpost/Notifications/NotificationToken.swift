import Foundation
import Synchronization

/// Keeps a notification block registered until `invalidate()` is called (or the token is released).
public final class NotificationToken: @unchecked Sendable {  // `onInvalidate` is guarded by the lock; `state` is atomic
    private let lock = NSLock()
    private var onInvalidate: (() -> Void)?
    /// Shared with the observer: once cancelled, no block runs, even one already scheduled.
    let state: ObservationState

    init(state: ObservationState = ObservationState(), onInvalidate: @escaping () -> Void) {
        self.state = state
        self.onInvalidate = onInvalidate
    }

    /// A token that observes nothing (Realm's public initializer; code returns one where no observation started).
    public convenience init() {
        self.init(onInvalidate: {})
    }

    /// Stops notifications; safe to call more than once and from any thread. A delivery already
    /// scheduled on the observer's run loop or queue does not run. True if the token was still valid (Realm's).
    @discardableResult
    public func invalidate() -> Bool {
        let wasValid = !state.isCancelled
        state.cancel()
        lock.lock()
        let block = onInvalidate
        onInvalidate = nil
        lock.unlock()
        block?()
        return wasValid
    }

    deinit {
        invalidate()
    }
}

/// Whether an observation was cancelled; read on the delivering thread, set from any thread.
final class ObservationState: Sendable {
    private let cancelled = Atomic<Bool>(false)

    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    func cancel() {
        cancelled.store(true, ordering: .releasing)
    }
}
