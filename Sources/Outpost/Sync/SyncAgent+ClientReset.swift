import Foundation
import OutpostCore

/// The client reset's side effects: the app's callbacks and the file. The machine decides when (docs/sync-client.md,
/// "Client reset").
extension SyncAgent {
    /// Automatic modes: `beforeReset` gets a frozen Realm of the data as it is; the file then forgets its server
    /// identity in one transaction (and with `.discard`, its upload queue), and the session binds again at once as a
    /// new file. The server's data replaces the local data when it has arrived; with `.recover`, the queued
    /// transactions are uploaded again on top.
    func beginClientReset(_ plan: ClientResetPlan) async throws {
        let callbacks = sync.clientResetMode.callbacks
        // A reset asked for again while one is under way (the new file refused too) keeps the first one's Realm from
        // before, and `beforeReset` is not called twice.
        if machine.reset == nil, callbacks.before != nil || callbacks.after != nil {
            resetBefore = await onCallbackQueue { [callbackConfiguration, manager] in
                (try? Realm(configuration: callbackConfiguration, queue: manager.callbackQueue)).map { UncheckedSendable($0.freeze()) }
            }
            if let beforeReset = callbacks.before, let before = resetBefore {
                let call = UncheckedSendable { beforeReset(before.value) }
                await onCallbackQueue { call.value() }
            }
        }
        // Stopped (suspended, logged out) while the callback ran: the reset begins on the next connection instead.
        try Task.checkCancellation()
        try await database.perform { try $0.syncBeginClientReset(plan) }
        let storedAck = plan == .discard
            ? try await database.perform { try $0.syncFile.uploadAck() } : nil
        try await perform(machine.clientResetBegun(plan, storedUploadAck: storedAck))
    }

    /// The reset's download has been applied: `afterReset` gets the frozen Realm from before and a live one.
    func finishClientReset() {
        let before = resetBefore
        resetBefore = nil
        guard let afterReset = sync.clientResetMode.callbacks.after else { return }
        let call = UncheckedSendable { [callbackConfiguration, manager] in
            guard let after = try? Realm(configuration: callbackConfiguration, queue: manager.callbackQueue) else { return }
            afterReset(before?.value ?? after.freeze(), after)
        }
        manager.callbackQueue.async { call.value() }
    }

    /// Runs `body` on the manager's callback queue and returns its result.
    private func onCallbackQueue<T>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            let result = UncheckedSendable(continuation)
            manager.callbackQueue.async { result.value.resume(returning: UncheckedSendable(body()).value) }
        }
    }
}
