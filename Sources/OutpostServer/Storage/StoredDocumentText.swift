/// One document of a page as Extended JSON text (``DocumentStorage/documentTexts(appId:collection:after:limit:)``).
public struct StoredDocumentText: Sendable {
    /// The document's `pk_key` (``PrimaryKeyText``): its primary key's Extended JSON, and the next page's `after`.
    public var key: String
    /// The document as Extended JSON text, `_id` included.
    public var text: String

    public init(key: String, text: String) {
        self.key = key
        self.text = text
    }
}
