import Synchronization

/// How many bytes of a connection's received messages may wait for the side that handles them: the reader takes a
/// share before it hands a message on and waits while the budget is full; the handler gives the share back when it
/// takes the message. While the reader waits it reads no more frames, so TCP holds the other end back.
///
/// On the server (its connection loop and sessions): without it, a client that sent uploads faster than its
/// session integrated them (a long offline queue, or a hostile client) grew the server's memory without bound. On
/// the client (`SyncSocket` and its session): a session applying a large bootstrap as it arrives, slower than
/// the server sends it, let the unread batches pile up in memory. A message is always let in when nothing is
/// queued, so one larger than the limit still goes through.
public final class InboundBudget: Sendable {

    private struct Waiter {
        let bytes: Int
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var queued = 0
        var waiters: [Waiter] = []
        var isClosed = false
    }

    public let limit: Int
    private let state = Mutex(State())
    private let onChange: @Sendable (Int) -> Void

    /// - Parameter onChange: told how many bytes the queues gained (positive) or lost (negative), for metrics.
    public init(limit: Int, onChange: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.limit = limit
        self.onChange = onChange
    }

    /// Bytes queued now.
    public var queuedBytes: Int { state.withLock { $0.queued } }
    /// Messages waiting for room. For tests.
    public var waiting: Int { state.withLock { $0.waiters.count } }

    /// Takes `bytes` for a message about to be queued, waiting until they fit (in arrival order).
    public func acquire(_ bytes: Int) async {
        let admitted = state.withLock { state in
            guard state.isClosed || (state.waiters.isEmpty && (state.queued == 0 || state.queued + bytes <= limit))
            else { return false }
            state.queued += bytes
            return true
        }
        if admitted {
            onChange(bytes)
            return
        }
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                if state.isClosed || (state.waiters.isEmpty && (state.queued == 0 || state.queued + bytes <= limit)) {
                    state.queued += bytes
                    return true
                }
                state.waiters.append(Waiter(bytes: bytes, continuation: continuation))
                return false
            }
            if now { continuation.resume() }
        }
        // A waiter's bytes were added to `queued` by the release that admitted it; reported here.
        onChange(bytes)
    }

    /// Gives back the bytes of messages a session took, and lets in the waiting messages that now fit.
    public func release(_ bytes: Int) {
        guard bytes > 0 else { return }
        let admitted = state.withLock { state in
            state.queued -= bytes
            return Self.admitWaiters(&state, limit: limit)
        }
        onChange(-bytes)
        for waiter in admitted { waiter.continuation.resume() }
    }

    /// Lets every waiting and later message in: the sessions are ending and will not take their queues.
    public func close() {
        let admitted = state.withLock { state in
            state.isClosed = true
            return Self.admitWaiters(&state, limit: limit)
        }
        for waiter in admitted { waiter.continuation.resume() }
    }

    private static func admitWaiters(_ state: inout State, limit: Int) -> [Waiter] {
        var admitted: [Waiter] = []
        while let first = state.waiters.first,
            state.isClosed || state.queued == 0 || state.queued + first.bytes <= limit
        {
            state.waiters.removeFirst()
            state.queued += first.bytes
            admitted.append(first)
        }
        return admitted
    }
}
