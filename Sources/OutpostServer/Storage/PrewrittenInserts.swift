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
        try self.init(documents, texts: [])
    }

    /// Writes the keys of documents that each have an `_id`, and the texts not given: `texts` is empty or has one
    /// entry per document, each nil or equal to that document's ``Document/extendedJSONText``.
    package init(_ documents: [Document], texts given: [String?]) throws {
        precondition(given.isEmpty || given.count == documents.count)
        self.documents = documents
        primaryKeys = try documents.map(PrimaryKeyText.primaryKey(of:))
        keys = primaryKeys.map(PrimaryKeyText.make)
        texts = documents.indices.map { i in (given.isEmpty ? nil : given[i]) ?? documents[i].extendedJSONText }
    }
}
