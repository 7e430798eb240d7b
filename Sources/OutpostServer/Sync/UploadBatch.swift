import OutpostCore
import Synchronization

/// Upload messages of one session that arrived one right after another, integrated together: one storage
/// transaction, one history append per changeset as before, one acknowledgement.
///
/// A client that has many transactions queued sends them as many `upload` messages without waiting for each
/// acknowledgement. Integrating each message in its own storage transaction left the server waiting on a commit, a
/// hop to the database's queue and back, and a download per message; uploads queued behind one another now join the
/// batch at the head of the session's queue while it waits to be handled (``ServerSession/enqueue(_:)``). A message
/// of another kind closes the batch, so the order of uploads, subscription changes and marks is kept.
///
/// Each message's changesets stay a group of their own: when a batch holds a group the partition or schema checks
/// refuse, the session handles the groups one by one, exactly as separate messages (the ones before it are
/// integrated and acknowledged, then the session fails).
final class UploadBatch: Sendable {
    /// At most this many changesets, and this many instructions, go into one batch (a message over the limits starts
    /// its own batch). Small enough that acknowledgements keep coming while a client uploads a long queue, and that
    /// the last batch's commit, which nothing overlaps, is short (ingest of 100,000 documents, interleaved runs:
    /// 2.22–2.51 s with 20,000 instructions, 1.99–2.08 s with 5,000, 2.14–2.26 s with 2,000).
    static let maxChangesets = 256
    static let maxInstructions = 5_000

    private struct State {
        var groups: [[UploadChangeset]] = []
        var changesets = 0
        var instructions = 0
        /// The messages' text, counted against the connection's ``InboundBudget`` until the session takes them.
        var bytes = 0
        /// Taken by the session: no more uploads join.
        var isTaken = false
    }

    private let state: Mutex<State>

    init(_ changesets: [UploadChangeset], bytes: Int = 0) {
        state = Mutex(State(groups: [changesets], changesets: changesets.count,
                            instructions: changesets.reduce(0) { $0 + $1.instructions.count }, bytes: bytes))
    }

    /// Adds a message's changesets, unless the session took the batch already or it would pass the limits.
    func join(_ changesets: [UploadChangeset], bytes: Int = 0) -> Bool {
        let instructions = changesets.reduce(0) { $0 + $1.instructions.count }
        return state.withLock { state in
            guard !state.isTaken, state.changesets + changesets.count <= Self.maxChangesets,
                state.instructions + instructions <= Self.maxInstructions
            else { return false }
            state.groups.append(changesets)
            state.changesets += changesets.count
            state.instructions += instructions
            state.bytes += bytes
            return true
        }
    }

    /// Closes the batch and returns its messages' changesets, one group per message, in arrival order, and the
    /// size of the messages' text.
    func take() -> (groups: [[UploadChangeset]], bytes: Int) {
        state.withLock { state in
            state.isTaken = true
            return (state.groups, state.bytes)
        }
    }
}
