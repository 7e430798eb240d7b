import Synchronization

/// The fields a storage has created indexes for (``ServerStorage/createFieldIndexes(_:)``), so that a query is driven
/// by a condition an index serves.
final class IndexedFields: Sendable {
    private let fields = Mutex<Set<String>>(["_id"])

    func insert(_ names: some Sequence<String>) {
        fields.withLock { $0.formUnion(names) }
    }

    /// The probe that drives a query's lookup: the one on `_id`, else the first on an indexed field, else nil (the
    /// query then pages the primary key and filters).
    func driver(of probes: [DocumentQueryProbe]) -> DocumentQueryProbe? {
        let indexed = fields.withLock { $0 }
        return probes.first { $0.field == "_id" } ?? probes.first { indexed.contains($0.field) }
    }
}
