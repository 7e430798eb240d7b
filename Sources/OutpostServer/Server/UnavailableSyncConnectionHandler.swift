/// The sync handler used until a sync engine is plugged in: it closes every connection with code 1011 and a reason
/// that says so.
public struct UnavailableSyncConnectionHandler: SyncConnectionHandler {
    public static let reason = "sync is not available on this server yet"

    public init() {}

    public func serve(_ connection: SyncConnection) async {
        await connection.close(1011, Self.reason)
    }
}
