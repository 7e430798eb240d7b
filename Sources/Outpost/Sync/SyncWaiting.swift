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

    /// Runs `body`, throwing `failure()` if it takes longer than `timeout`. The body is not awaited after a timeout
    /// (a wait on a subscription set or a session cannot be cancelled); it finishes on its own.
    static func race<T: Sendable>(
        _ timeout: Duration, failure: @escaping @Sendable () -> Error, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let once = Once<T>()
        return try await withCheckedThrowingContinuation { continuation in
            once.set(continuation)
            Task {
                do { once.resume(.success(try await body())) } catch { once.resume(.failure(error)) }
            }
            Task {
                try? await Task.sleep(for: timeout)
                once.resume(.failure(failure()))
            }
        }
    }
}

/// Resumes a continuation once; later results are dropped.
private final class Once<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, Error>?

    func set(_ c: CheckedContinuation<T, Error>) { lock.withLock { continuation = c } }

    func resume(_ result: Result<T, Error>) {
        let c: CheckedContinuation<T, Error>? = lock.withLock {
            defer { continuation = nil }
            return continuation
        }
        c?.resume(with: result)
    }
}
