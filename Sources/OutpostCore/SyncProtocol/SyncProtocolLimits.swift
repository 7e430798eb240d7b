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
    /// The protocol version this implementation speaks.
    public static let protocolVersion = 1
}
