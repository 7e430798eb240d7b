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
    /// The open's background work (the download).
    private var work: Task<Void, Never>?

    init() {}

    /// Cancels the open: the callback is not called, progress notifications stop, and the open stops waiting for
    /// the download (its Realm closes).
    public func cancel() {
        let (tokens, work) = lock.withLock { () -> ([SyncSession.ProgressNotificationToken], Task<Void, Never>?) in
            cancelled = true
            defer { self.tokens = [] }
            return (self.tokens, self.work)
        }
        for token in tokens { token.invalidate() }
        work?.cancel()
    }

    /// The open's background work, cancelled with the open.
    func run(_ work: Task<Void, Never>) {
        let cancelled = lock.withLock {
            self.work = work
            return self.cancelled
        }
        if cancelled { work.cancel() }
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
