/// The payload of ``ServerMessage/download(_:)``: changes for the client, and the acknowledgement of its uploads.
public struct DownloadMessage: Hashable, Sendable {
    /// The session the message belongs to.
    public var session: Int64
    /// The download position after applying this message; store it with the changes.
    public var cursor: DownloadCursor
    /// The newest version the server had when it sent the message.
    public var latestServerVersion: Int64
    /// The highest client version of this file the server has integrated.
    public var uploadAck: Int64
    /// The subscription version the changes belong to (flexible mode; 0 otherwise).
    public var queryVersion: Int64
    /// Where the message stands in a flexible-sync bootstrap.
    public var batch: DownloadBatchState
    /// The server changesets, already filtered to the client's view.
    public var changesets: [DownloadChangeset]

    public init(
        session: Int64, cursor: DownloadCursor, latestServerVersion: Int64, uploadAck: Int64, queryVersion: Int64,
        batch: DownloadBatchState, changesets: [DownloadChangeset]
    ) {
        self.session = session
        self.cursor = cursor
        self.latestServerVersion = latestServerVersion
        self.uploadAck = uploadAck
        self.queryVersion = queryVersion
        self.batch = batch
        self.changesets = changesets
    }
}
