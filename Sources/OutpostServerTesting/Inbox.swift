import Synchronization

/// Received frames of a ``SyncTestClient``, waited for with a timeout.
actor Inbox {
    /// A received frame and when it arrived (read off the socket, before any decoding).
    struct Frame: Sendable {
        var text: String
        var arrival: ContinuousClock.Instant
    }

    private var buffer: [Frame] = []
    private var waiter: CheckedContinuation<Frame, any Error>?
    private var isOpen = false
    private var openWaiter: CheckedContinuation<Void, any Error>?
    private(set) var closeReason: String??
    private var closeWaiters: [CheckedContinuation<String?, Never>] = []

    func opened() {
        isOpen = true
        openWaiter?.resume()
        openWaiter = nil
    }

    func received(_ text: String, at arrival: ContinuousClock.Instant = .now) {
        let frame = Frame(text: text, arrival: arrival)
        if let waiter {
            self.waiter = nil
            waiter.resume(returning: frame)
        } else {
            buffer.append(frame)
        }
    }

    func closed(_ reason: String?) {
        if case .some = closeReason { return }
        closeReason = .some(reason)
        waiter?.resume(throwing: SyncTestClient.ClientError.closed(reason))
        waiter = nil
        openWaiter?.resume(throwing: SyncTestClient.ClientError.closed(reason))
        openWaiter = nil
        for w in closeWaiters { w.resume(returning: reason) }
        closeWaiters = []
    }

    func waitUntilOpen() async throws {
        if isOpen { return }
        if case .some(let reason) = closeReason { throw SyncTestClient.ClientError.closed(reason) }
        try await withCheckedThrowingContinuation { openWaiter = $0 }
    }

    func next(timeout: Duration) async throws -> String {
        try await nextFrame(timeout: timeout).text
    }

    func nextFrame(timeout: Duration) async throws -> Frame {
        if !buffer.isEmpty { return buffer.removeFirst() }
        if case .some(let reason) = closeReason { throw SyncTestClient.ClientError.closed(reason) }
        waiterGeneration += 1
        let generation = waiterGeneration
        let timer = Task { [weak self] in
            do { try await Task.sleep(for: timeout) } catch { return }
            await self?.expire(timeout, generation: generation)
        }
        defer { timer.cancel() }
        return try await withCheckedThrowingContinuation { waiter = $0 }
    }

    private var waiterGeneration = 0

    private func expire(_ timeout: Duration, generation: Int) {
        guard generation == waiterGeneration else { return }
        waiter?.resume(throwing: SyncTestClient.ClientError.timeout(timeout))
        waiter = nil
    }

    func waitForClose(timeout: Duration) async throws -> String? {
        if case .some(let reason) = closeReason { return reason }
        let timer = Task { [weak self] in
            do { try await Task.sleep(for: timeout) } catch { return }
            await self?.closed("timeout waiting for close")
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { closeWaiters.append($0) }
    }
}

/// A value behind a mutex.
final class LockedBox<T: Sendable>: Sendable {
    private let mutex: Mutex<T>
    init(_ value: T) { mutex = Mutex(value) }
    func get() -> T { mutex.withLock { $0 } }
    func set(_ value: T) { mutex.withLock { $0 = value } }
}
