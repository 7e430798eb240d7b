import Foundation
import OutpostCore

/// The bootstrap stream's transaction (``BootstrapStream``): batches applied as they arrive, committed with the last.
extension SyncAgent {
    /// Queues one batch of the bootstrap stream: the batch before it must be applied first, so the next one is
    /// decoded while this one is applied, and at most two are in memory.
    func streamBatch(_ stream: BootstrapStream, _ changesets: [DownloadChangeset]) async throws {
        if let previous = streamApply {
            try await previous.value
            streamApplied += streamQueued
            manager.log(.trace, "Sync: Connection[\(machine.connectionNumber)]: Session[\(sessionNumber)]: \(streamApplied) "
                + "instructions of the bootstrap applied so far (not committed)")
        } else {
            streamApplied = 0
        }
        streamQueued = changesets.reduce(0) { $0 + $1.instructions.count }
        let database = database
        streamApply = Task { try await database.perform { try $0.syncStreamBatch(stream, changesets) } }
    }

    /// Rolls back the bootstrap stream, if one is open.
    func cancelStream() async {
        guard stream != nil else { return }
        machine.streamCancelled()
        stream = nil
        if let applying = streamApply { _ = try? await applying.value }
        streamApply = nil
        _ = try? await database.perform { $0.syncCancelBootstrapStream() }
    }
}
