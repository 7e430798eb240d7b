import Foundation

/// Timeouts for sync waits, with Realm's error: POSIX `ETIMEDOUT`, "Waiting for update timed out after 1.0 seconds.".
enum SyncWaiting {
    static func timeoutError(_ seconds: TimeInterval) -> NSError {
        NSError(domain: NSPOSIXErrorDomain, code: Int(ETIMEDOUT), userInfo: [
            NSLocalizedDescriptionKey: "Waiting for update timed out after \(String(format: "%.1f", seconds)) seconds."
        ])
    }

    /// Runs `body`, throwing the timeout error if it takes longer than `timeout` (nil: no limit).
    static func withTimeout<T: Sendable>(_ timeout: TimeInterval?, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        guard let timeout else { return try await body() }
        return try await race(.milliseconds(Int(timeout * 1000)), failure: { timeoutError(timeout) }, body)
    }

    /// Runs `body`, throwing `failure()` if it takes longer than `timeout`. After a timeout the body is cancelled and
    /// not awaited: a session's wait stops at once, a wait on a subscription set ends when the set does. Cancelling
    /// the calling task cancels the body and throws `CancellationError`.
    static func race<T: Sendable>(
        _ timeout: Duration, failure: @escaping @Sendable () -> Error, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let once = Once<T>()
        let work = Task {
            do { once.resume(.success(try await body())) } catch { once.resume(.failure(error)) }
        }
        let timer = Task {
            try await Task.sleep(for: timeout)
            once.resume(.failure(failure()))
            work.cancel()
        }
        Task {
            _ = await work.result
            timer.cancel()
        }
        return try await waitCancellably(once, work)
    }

    /// Runs `body` in its own task; cancelling the calling task ends the wait at once with `CancellationError` (the
    /// body is cancelled and not awaited) — for a wait that does not stop on its own when cancelled.
    static func cancellable<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let once = Once<T>()
        let work = Task {
            do { once.resume(.success(try await body())) } catch { once.resume(.failure(error)) }
        }
        return try await waitCancellably(once, work)
    }

    /// Waits for `once`'s result; cancelling the waiting task cancels `work` and ends the wait with
    /// `CancellationError`.
    private static func waitCancellably<T: Sendable>(_ once: Once<T>, _ work: Task<Void, Never>) async throws -> T {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                once.set(continuation)
            }
        } onCancel: {
            once.resume(.failure(CancellationError()))
            work.cancel()
        }
    }
}

extension SyncWaiting {
    /// Runs `body`, throwing the error `failure` returns if it returns one first. After a failure the body is
    /// cancelled and not awaited (as in ``race(_:failure:_:)``); `failure` is cancelled once the body has finished
    /// (it then returns nil).
    static func race<T: Sendable>(
        failure: @escaping @Sendable () async -> Error?, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let once = Once<T>()
        let work = Task {
            do { once.resume(.success(try await body())) } catch { once.resume(.failure(error)) }
        }
        let watcher = Task {
            if let error = await failure() {
                once.resume(.failure(error))
                work.cancel()
            }
        }
        defer { watcher.cancel() }
        return try await waitCancellably(once, work)
    }
}

/// Resumes a continuation once with the first result; later results are dropped. A result that comes before the
/// continuation is set is kept for it.
private final class Once<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, Error>?
    private var first: Result<T, Error>?
    private var isDone = false

    func set(_ c: CheckedContinuation<T, Error>) {
        let ready: Result<T, Error>? = lock.withLock {
            if let first {
                isDone = true
                return first
            }
            continuation = c
            return nil
        }
        if let ready { c.resume(with: ready) }
    }

    func resume(_ result: Result<T, Error>) {
        let c: CheckedContinuation<T, Error>? = lock.withLock {
            guard !isDone, first == nil else { return nil }
            guard let continuation else {
                first = result
                return nil
            }
            isDone = true
            self.continuation = nil
            return continuation
        }
        c?.resume(with: result)
    }
}
