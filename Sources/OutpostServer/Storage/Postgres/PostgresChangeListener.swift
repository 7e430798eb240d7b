import Logging
import PostgresNIO

/// Keeps one pooled connection LISTENing on the storage's channel and hands every notification to the
/// storage's ``ChangeBroadcaster``.
///
/// It starts with the first `changeNotifications()` call, which returns once LISTEN is active, so a commit made
/// after that call is always announced. When the connection drops it reconnects after a second; notifications
/// sent in between are lost (PostgreSQL keeps none), so consumers treat them as hints and read
/// `latestServerVersion` when they resubscribe.
actor PostgresChangeListener {
    private let client: PostgresClient
    private let channel: String
    private let broadcaster: ChangeBroadcaster
    private let logger: Logger
    private var task: Task<Void, Never>?
    private var listening = false
    private var hasListened = false
    private var waiters: [CheckedContinuation<Void, any Error>] = []

    init(client: PostgresClient, channel: String, broadcaster: ChangeBroadcaster, logger: Logger) {
        self.client = client
        self.channel = channel
        self.broadcaster = broadcaster
        self.logger = logger
    }

    /// Starts listening if needed and returns once LISTEN is active.
    func start() async throws {
        if listening { return }
        if task == nil { task = Task { await self.listenLoop() } }
        try await withCheckedThrowingContinuation { waiters.append($0) }
    }

    func stop() async {
        let task = self.task
        self.task = nil
        task?.cancel()
        await task?.value
        listening = false
        resumeWaiters(with: CancellationError())
    }

    private func listenLoop() async {
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: channel) { notifications in
                        didStartListening()
                        for try await notification in notifications {
                            if let change = ChangeBroadcaster.parse(payload: notification.payload) {
                                broadcaster.yield(change)
                            }
                        }
                    }
                }
            } catch {
                if Task.isCancelled { break }
                logger.warning("LISTEN \(channel) failed: \(String(reflecting: error))")
                // Before the first success, callers wait for an answer: give them the error.
                if !hasListened {
                    resumeWaiters(with: error)
                    task = nil
                    return
                }
            }
            listening = false
            try? await Task.sleep(for: .seconds(1))
        }
    }

    private func didStartListening() {
        listening = true
        hasListened = true
        resumeWaiters(with: nil)
    }

    private func resumeWaiters(with error: (any Error)?) {
        let waiters = self.waiters
        self.waiters = []
        for waiter in waiters {
            if let error { waiter.resume(throwing: error) } else { waiter.resume() }
        }
    }
}
