import Foundation

/// Realm's `AsyncOpenTask`: the handle `Realm.asyncOpen(configuration:callbackQueue:callback:)` returns, to cancel the
/// open or to watch its download.
public final class AsyncOpenTask: @unchecked Sendable {
    // @unchecked Sendable: the mutable state is guarded by `lock`.
    private let lock = NSLock()
    private var cancelled = false
    private var session: SyncSession?
    private var blocks: [(DispatchQueue, (SyncSession.Progress) -> Void)] = []
    private var tokens: [SyncSession.ProgressNotificationToken] = []

    init() {}

    /// Cancels the open: the callback is not called, and progress notifications stop.
    public func cancel() {
        let tokens = lock.withLock { () -> [SyncSession.ProgressNotificationToken] in
            cancelled = true
            defer { self.tokens = [] }
            return self.tokens
        }
        for token in tokens { token.invalidate() }
    }

    /// Calls `block` on `queue` with the download progress of the open.
    public func addProgressNotification(queue: DispatchQueue = .main, block: @escaping (SyncSession.Progress) -> Void) {
        let session = lock.withLock { () -> SyncSession? in
            blocks.append((queue, block))
            return self.session
        }
        if let session { register(queue, block, on: session) }
    }

    var isCancelled: Bool { lock.withLock { cancelled } }

    /// The session of the file being opened exists: the progress blocks asked for so far start reporting.
    func attach(_ session: SyncSession) {
        let blocks = lock.withLock { () -> [(DispatchQueue, (SyncSession.Progress) -> Void)] in
            self.session = session
            return self.blocks
        }
        for (queue, block) in blocks { register(queue, block, on: session) }
    }

    private func register(_ queue: DispatchQueue, _ block: @escaping (SyncSession.Progress) -> Void, on session: SyncSession) {
        nonisolated(unsafe) let block = block  // called only on `queue`, as Realm does
        let token = session.addProgressNotification(for: .download, mode: .forCurrentlyOutstandingWork) { [weak self] progress in
            let task = self
            queue.async { if task?.isCancelled == false { block(progress) } }
        }
        if let token { lock.withLock { tokens.append(token) } }
    }
}
