/// A sync handler that refuses every connection with code 1011 and a reason that says so: for embedding the HTTP
/// server without sync (the default handler is a ``SyncEngine``). (Outpost-only.)
public struct UnavailableSyncConnectionHandler: SyncConnectionHandler {
    public static let reason = "sync is not available on this server yet"

    public init() {}

    public func serve(_ connection: SyncConnection) async {
        await connection.close(1011, Self.reason)
    }
}
