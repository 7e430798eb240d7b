import OutpostCore

/// The first documents of a read in its order (the sort keys, then primary-key order), keeping at most `capacity`
/// of them while documents stream in: a `find` with a limit holds that many, whatever the collection's size.
struct DataAPITopDocuments {
    struct Entry {
        var document: Document
        /// The stored key (``PrimaryKeyText``), the last tie-breaker.
        var key: String
    }

    let sort: [(path: String, ascending: Bool)]
    /// nil keeps every document.
    let capacity: Int?
    private(set) var entries: [Entry] = []

    init(sort: [(path: String, ascending: Bool)], capacity: Int?) {
        self.sort = sort
        self.capacity = capacity
    }

    var documents: [Document] { entries.map(\.document) }

    mutating func add(_ document: Document, key: String) {
        let entry = Entry(document: document, key: key)
        if let capacity {
            guard capacity > 0 else { return }
            if entries.count == capacity {
                guard precedes(entry, entries[capacity - 1]) else { return }
                entries.removeLast()
            }
        }
        // Binary search for the first entry the new one precedes.
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if precedes(entry, entries[middle]) { high = middle } else { low = middle + 1 }
        }
        entries.insert(entry, at: low)
    }

    private func precedes(_ l: Entry, _ r: Entry) -> Bool {
        for key in sort {
            let c = DataAPIValues.compare(DataAPIValues.get(key.path, in: l.document), DataAPIValues.get(key.path, in: r.document))
            if c != 0 { return key.ascending ? c < 0 : c > 0 }
        }
        let c = DataAPIValues.compare(l.document["_id"], r.document["_id"])
        if c != 0 { return c < 0 }
        return l.key.utf8.lexicographicallyPrecedes(r.key.utf8)
    }
}
