/// The sizes the protocol accepts. A message over a limit gets error 104 (limits exceeded) for the connection,
/// a query over ``maxQueryBytes`` gets 226 for its subscription version only.
public enum SyncProtocolLimits {
    /// The largest WebSocket frame (one message), in bytes.
    public static let maxMessageBytes = 16 * 1024 * 1024
    /// The largest query text of one class in a subscription set, in bytes.
    public static let maxQueryBytes = 256 * 1024
    /// The most changesets in one upload message.
    public static let maxChangesetsPerUpload = 10_000
    /// The most instructions a server puts in one download message (bootstraps are split into batches).
    public static let maxInstructionsPerDownload = 2_000
    /// The most bytes of changesets a server puts in one download message. A changeset larger than this is sent
    /// in parts, in messages that say `moreToCome` before the last one; one instruction larger than this is a part
    /// of its own. With ``maxDocumentBytes`` this keeps every download under ``maxMessageBytes``.
    public static let maxDownloadBytes = 8 * 1024 * 1024
    /// The largest document (its Extended JSON text) the server stores from an upload; a larger one is refused as
    /// a compensating write. MongoDB's own limit is 16 MB; this one leaves room for a download message's envelope.
    public static let maxDocumentBytes = maxMessageBytes - 64 * 1024
    /// The protocol version this implementation speaks. Version 2 sends a changeset larger than
    /// ``maxDownloadBytes`` in parts (docs/protocol.md, "Large downloads and uploads"); a client of version 1 would
    /// apply only the last part and move its cursor past the others, so the server refuses it at `bind` (105).
    /// Version 3 leaves out a `create`'s `pk` when it is the created fields' `_id` (``SyncInstruction/createOmitsPrimaryKey``);
    /// a server of version 2 would refuse such a create, so a version 3 client binds with 3 and gets 105 there.
    public static let protocolVersion = 3
}
