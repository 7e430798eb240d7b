import OutpostCore

/// A stored document with its key (``PrimaryKeyText``), as
/// ``DocumentStorage/documents(appId:collection:after:limit:)`` pages them.
public struct StoredDocument: Sendable {
    public var key: String
    public var document: Document

    public init(key: String, document: Document) {
        self.key = key
        self.document = document
    }
}
