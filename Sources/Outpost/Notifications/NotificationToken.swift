import Foundation

/// Keeps a notification block registered until `invalidate()` is called (or the token is released).
public final class NotificationToken: @unchecked Sendable {  // invalidate may be called from any thread; guarded by a lock
    private let lock = NSLock()
    private var onInvalidate: (() -> Void)?

    init(onInvalidate: @escaping () -> Void) {
        self.onInvalidate = onInvalidate
    }

    /// Stops notifications; safe to call more than once and from any thread.
    public func invalidate() {
        lock.lock()
        let block = onInvalidate
        onInvalidate = nil
        lock.unlock()
        block?()
    }

    deinit {
        invalidate()
    }
}
