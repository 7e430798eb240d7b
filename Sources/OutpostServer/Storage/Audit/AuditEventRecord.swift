/// One indexed audit event as a search reads it: its index entry, the chain batch it was ingested in, and the
/// `AuditEvent` document as stored. Outpost-only.
public struct AuditEventRecord: Hashable, Sendable {
    public var entry: AuditIndexEntry
    /// The sequence number of the batch it was ingested in (``AuditBatchRecord/sequence``).
    public var batch: Int64
    /// The stored Extended JSON text of the `AuditEvent` document; nil when the document is gone (deleted other than
    /// by retention: ``AuditChainVerifier`` reports it).
    public var text: String?

    public init(entry: AuditIndexEntry, batch: Int64, text: String?) {
        self.entry = entry
        self.batch = batch
        self.text = text
    }
}
