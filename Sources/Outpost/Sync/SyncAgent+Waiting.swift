import Foundation
import OutpostCore

/// The callers waiting on the session: `wait(for:)`, `verdict(forTransaction:)`, and an asynchronous open watching
/// for a failed connection attempt. The machine decides when each is answered; the agent holds the continuations.
extension SyncAgent {
    /// The error of the next connection attempt that fails to connect (the server unreachable, the connect timeout
    /// passed): POSIX `ETIMEDOUT` for a timeout, `SyncError` `.connectionFailed` otherwise, as the original reports
    /// them; nil when the waiting task is cancelled. An asynchronous open with `cancelAsyncOpenOnNonFatalErrors`
    /// fails with it.
    ///
    /// The waiter is registered before the session skips what is left of a backoff wait (`reconnect()`), so that the
    /// attempt this starts cannot fail unseen.
    func nextConnectionFailure() async -> Error? {
        let id = UUID()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if Task.isCancelled {
                    continuation.resume(returning: nil)
                } else {
                    connectionFailureWaiters[id] = continuation
                    reconnect()
                }
            }
        } onCancel: {
            Task { await self.stopWaitingForConnectionFailure(id) }
        }
    }

    private func stopWaitingForConnectionFailure(_ id: UUID) {
        connectionFailureWaiters.removeValue(forKey: id)?.resume(returning: nil)
    }

    func reportConnectionFailure(_ description: String, isTimeout: Bool) {
        guard !connectionFailureWaiters.isEmpty else { return }
        let reported: Error = isTimeout
            ? NSError(domain: NSPOSIXErrorDomain, code: Int(ETIMEDOUT), userInfo: [NSLocalizedDescriptionKey: description])
            : SyncError(.connectionFailed, description)
        let waiters = connectionFailureWaiters.values
        connectionFailureWaiters.removeAll()
        for waiter in waiters { waiter.resume(returning: reported) }
    }

    /// Waits until everything the server has now is downloaded.
    /// A cancelled caller stops waiting at once, with `CancellationError`.
    func waitForDownload() async throws {
        await session?.controlSettled()
        if isInvalid { throw SyncError(.clientSessionError, "The sync session is invalid.") }
        if abandoned { throw Self.abandonedError }
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
                if Task.isCancelled { return continuation.resume(throwing: CancellationError()) }
                downloadContinuations[id] = continuation
                performNow(machine.waitForDownload(id))
            }
        } onCancel: {
            Task { await self.stopWaiting(id) }
        }
    }

    /// Waits until every transaction committed so far is acknowledged by the server.
    func waitForUpload() async throws {
        await session?.controlSettled()
        if isInvalid { throw SyncError(.clientSessionError, "The sync session is invalid.") }
        if abandoned { throw Self.abandonedError }
        let target = try await database.perform { try $0.syncFile.lastClientVersion() }
        if abandoned { throw Self.abandonedError }  // abandoned while the target was read
        if machine.uploadAck >= target { return }
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
                if Task.isCancelled { return continuation.resume(throwing: CancellationError()) }
                uploadContinuations[id] = continuation
                performNow(machine.waitForUpload(id, target: target))
            }
        } onCancel: {
            Task { await self.stopWaiting(id) }
        }
    }

    /// The server's verdict on one committed transaction (by client version): known once the server acknowledged it
    /// and any compensating write for it was applied and reported.
    func verdict(forTransaction version: Int64) async throws -> SyncSession.WriteVerdict {
        if isInvalid { throw SyncError(.clientSessionError, "The sync session is invalid.") }
        let id = UUID()
        // The machine answers at once when the verdict is known, else keeps the caller waiting.
        return try await withCheckedThrowingContinuation { continuation in
            verdictContinuations[id] = continuation
            let (decided, actions) = machine.verdict(id, forTransaction: version)
            if let decided {
                verdictContinuations[id] = nil
                continuation.resume(returning: decided)
            }
            performNow(actions)
        }
    }

    /// The session is forgotten for good (``SyncSession/abandonWaits()``): every `wait(for:)` caller fails.
    func abandonWaiters() {
        abandoned = true
        machine.abandonWaiters()
        let waiters = Array(downloadContinuations.values) + Array(uploadContinuations.values)
        downloadContinuations.removeAll()
        uploadContinuations.removeAll()
        for continuation in waiters { continuation.resume(throwing: Self.abandonedError) }
    }

    static var abandonedError: SyncError {
        SyncError(.clientSessionError, "The sync session stopped: its user logged out and no Realm of its file is open.")
    }

    /// A cancelled `wait(for:)` caller: it stops waiting (if it still does).
    private func stopWaiting(_ id: UUID) {
        guard machine.stopWaiting(id) else { return }
        downloadContinuations.removeValue(forKey: id)?.resume(throwing: CancellationError())
        uploadContinuations.removeValue(forKey: id)?.resume(throwing: CancellationError())
    }
}
