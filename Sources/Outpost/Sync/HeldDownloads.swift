import Foundation
import OutpostCore

/// Downloads the session holds back until the message that completes them: a bootstrap's batches (until `last`), the
/// parts of a changeset too large for one message, and the downloads of a partition-based client reset (until the
/// session has caught up). They are applied together, in one transaction (``RealmInstance/syncApplyDownload(_:then:cursor:uploadAck:bootstrappedQueryVersion:rejections:finishesReset:)``).
///
/// The first messages are kept parsed, in memory, up to ``SyncConfiguration/heldDownloadMemoryLimit`` bytes of
/// message text; the messages after those are stored in the file (``SyncFile/holdDownload(_:)``, their text as it
/// came) and read back one at a time while they are applied. The held messages of a large bootstrap then cost the
/// memory of the limit and one or two messages, not of all of them (the apply still keeps a key per object it
/// writes). The stored messages are deleted with the transaction that applies them, or when the session stops; after
/// a crash the session deletes them before it binds (the server sends them again, as the cursor did not move).
struct HeldDownloads: Sendable {
    /// The first held changesets, parsed, in the order they came.
    private(set) var parsed: [DownloadChangeset] = []
    /// Bytes of message text the parsed changesets came in.
    private(set) var parsedBytes = 0
    /// How many messages, held after `parsed`, are stored in the file.
    private(set) var stored = 0
    /// Instructions held: counted for the parsed messages and those stored after parsing; for a stored message whose
    /// changesets were not read, the most a bootstrap batch holds (an estimate: only sizes the apply's key set).
    private(set) var instructionCount = 0

    var isEmpty: Bool { parsed.isEmpty && stored == 0 }

    /// Whether a message of `bytes` bytes still fits in memory under `limit`: only while nothing is stored yet, so
    /// that the stored messages all come after the parsed ones.
    func keepsInMemory(_ bytes: Int, limit: Int) -> Bool {
        stored == 0 && parsedBytes + bytes <= limit
    }

    mutating func keep(_ changesets: [DownloadChangeset], bytes: Int) {
        parsed += changesets
        parsedBytes += bytes
        instructionCount += changesets.reduce(0) { $0 + $1.instructions.count }
    }

    /// A message of about `instructions` instructions was stored in the file (its changesets may not have been read
    /// yet: the count is then an estimate).
    mutating func noteStored(instructions: Int) {
        stored += 1
        instructionCount += instructions
    }
}

extension HeldDownloads {
    /// Calls `body` with the changesets of each download message stored in `file`, in order. Each message is read on
    /// the calling thread (the connection's) and parsed on another while the one before it is applied, so that
    /// reading them back costs about what applying them does; at most two parsed messages are in memory at once.
    /// Throws when a stored text is not a download message (the file was damaged).
    static func forEachStored(in file: SyncFile, _ body: ([DownloadChangeset]) throws -> Void) throws {
        var next = try file.heldDownload(after: 0).map { ($0.0, HeldMessageParse($0.1)) }
        while let (sequence, parse) = next {
            next = try file.heldDownload(after: sequence).map { ($0.0, HeldMessageParse($0.1)) }
            try body(try parse.changesets(sequence))
        }
    }
}

/// A stored download message that cannot be read: the server sent a bootstrap batch whose envelope was readable
/// (all that is read on arrival) but whose changesets are not. The apply fails and rolls back; the session logs it
/// as a bad message and connects again after a growing backoff.
struct HeldDownloadUnreadable: Error, CustomStringConvertible {
    let sequence: Int64
    let reason: String
    var description: String { "held download \(sequence) (a bootstrap batch): \(reason)" }
}

/// One stored download message parsed on its own queue; ``changesets(_:)`` waits for it. Not a global queue: the
/// threads waiting for the file's write lock, which the apply holds, may be global ones.
private final class HeldMessageParse: @unchecked Sendable {  // `result` is written before `done` signals, read after
    private let done = DispatchSemaphore(value: 0)
    private var result: Result<ServerMessage, Error>?

    init(_ text: String) {
        DispatchQueue(label: "outpost.sync.held-parse").async {
            self.result = Result { try ServerMessage.decode(text) }
            self.done.signal()
        }
    }

    func changesets(_ sequence: Int64) throws -> [DownloadChangeset] {
        done.wait()
        let message: ServerMessage
        do {
            message = try result!.get()
        } catch {
            throw HeldDownloadUnreadable(sequence: sequence, reason: "\(error)")
        }
        guard case .download(let download) = message else {
            throw HeldDownloadUnreadable(sequence: sequence, reason: "not a download message")
        }
        return download.changesets
    }
}
