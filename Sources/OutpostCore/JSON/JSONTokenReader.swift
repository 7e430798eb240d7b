/// A reader that goes straight from a message's bytes to typed values over a ``JSONReader`` (`UploadMessageReader`,
/// `DownloadMessageReader`, the server's `EventBatchReader`): the pieces they all read the same way.
package protocol JSONTokenReader {
    var reader: JSONReader { get set }
}

extension JSONTokenReader {
    /// A JSON array whose elements `element` reads, or nil when it is not an array, an element does not read, or it
    /// has more than `limit` elements.
    package mutating func array<T>(limit: Int = .max, reservingCapacity capacity: Int = 0,
                                   _ element: (inout Self) -> T?) -> [T]? {
        guard reader.take("[") else { return nil }
        var items: [T] = []
        items.reserveCapacity(capacity)
        if reader.take("]") { return items }
        repeat {
            guard items.count < limit, let item = element(&self) else { return nil }
            items.append(item)
        } while reader.take(",")
        return reader.take("]") ? items : nil
    }

    /// Puts what was read into an empty slot: false when nothing was read or the slot is filled (a repeated key).
    package static func fill<T>(_ slot: inout T?, _ read: T?) -> Bool {
        guard slot == nil, let read else { return false }
        slot = read
        return true
    }
}
