import OutpostCore

/// The documents a transaction wrote, by address, in the order they were first written, each with its
/// Extended JSON text when the writer had it.
///
/// Kept in write order so that the commit can store a run of documents written in key order (new objects with
/// ObjectId keys, event uploads) without sorting them: it only checks that they are in order.
package struct WrittenDocuments: Sendable {
    package struct Entry: Sendable {
        package let address: DocumentAddress
        /// The document to store, or nil to delete it.
        package var document: Document?
        /// `document` already written (``Document/extendedJSONText``), when its writer had it.
        package var text: String?
    }

    private var index: [DocumentAddress: Int] = [:]
    /// One entry per address, in the order the addresses were first written.
    package private(set) var entries: [Entry] = []

    package init() {}

    package var count: Int { entries.count }
    package var isEmpty: Bool { entries.isEmpty }

    package mutating func reserveCapacity(_ capacity: Int) {
        index.reserveCapacity(capacity)
        entries.reserveCapacity(capacity)
    }

    /// `.some(document)` when the transaction stores a document at `address`, `.some(nil)` when it deletes it,
    /// nil when it did not write it.
    package subscript(address: DocumentAddress) -> Document?? {
        guard let i = index[address] else { return nil }
        return .some(entries[i].document)
    }

    /// Notes that the transaction stores `document` at `address` (nil: deletes it); `text` must be nil or equal
    /// `document.extendedJSONText`.
    package mutating func write(_ document: Document?, at address: DocumentAddress, text: String? = nil) {
        let next = entries.count
        let i = index.valueOrInsert(next, forKey: address)
        if i == next {
            entries.append(Entry(address: address, document: document, text: text))
        } else {
            entries[i].document = document
            entries[i].text = text
        }
    }
}
