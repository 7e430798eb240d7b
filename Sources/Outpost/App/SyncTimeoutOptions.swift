/// Timeouts and intervals of the sync client, all in milliseconds, as Realm Swift's `SyncTimeoutOptions`.
///
/// A `nil` argument keeps the default. Outpost makes this a struct (Realm's is a class).
public struct SyncTimeoutOptions: Sendable, Hashable {
    /// How long establishing a connection may take (address lookup, TCP, TLS, WebSocket handshake). Default 2 min.
    public var connectTimeout: UInt = 120_000
    /// How long an idle multiplexed connection stays open. Default 30 s.
    public var connectionLingerTime: UInt = 30_000
    /// How long to wait between pings. Default 1 min.
    public var pingKeepalivePeriod: UInt = 60_000
    /// How long to wait for the answer to a ping. Default 2 min.
    public var pongKeepaliveTimeout: UInt = 120_000
    /// A reconnect within this time after a disconnect skips the initial download. Default 1 min.
    public var fastReconnectLimit: UInt = 60_000

    public init(
        connectTimeout: UInt? = nil, connectionLingerTime: UInt? = nil, pingKeepalivePeriod: UInt? = nil,
        pongKeepaliveTimeout: UInt? = nil, fastReconnectLimit: UInt? = nil
    ) {
        if let connectTimeout { self.connectTimeout = connectTimeout }
        if let connectionLingerTime { self.connectionLingerTime = connectionLingerTime }
        if let pingKeepalivePeriod { self.pingKeepalivePeriod = pingKeepalivePeriod }
        if let pongKeepaliveTimeout { self.pongKeepaliveTimeout = pongKeepaliveTimeout }
        if let fastReconnectLimit { self.fastReconnectLimit = fastReconnectLimit }
    }
}
