import OutpostCore

/// Documents to insert with their primary keys and texts already written (``StorageTransaction/insertNew(collection:_:)``),
/// so that the writing happens before the app's transaction instead of inside it. Outpost-only.
public struct PrewrittenInserts: Sendable {
    public let documents: [Document]
    /// Each document's `_id`.
    public let primaryKeys: [Value]
    /// Each primary key's text (``PrimaryKeyText/make(_:)``).
    public let keys: [String]
    /// Each document's Extended JSON text (``Document/extendedJSONText``).
    public let texts: [String]

    /// Writes the keys and texts of documents that each have an `_id`.
    public init(_ documents: [Document]) throws {
        self.documents = documents
        primaryKeys = try documents.map(PrimaryKeyText.primaryKey(of:))
        keys = primaryKeys.map(PrimaryKeyText.make)
        texts = documents.map(\.extendedJSONText)
    }
}
