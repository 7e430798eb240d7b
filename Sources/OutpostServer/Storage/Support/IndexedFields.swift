import Synchronization

/// The fields a storage has created indexes for (``DocumentStorage/createFieldIndexes(_:)``), so that a query is driven
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

    /// The same driver as ``driver(of:)`` for `query`'s probes, building only the probes it looks at (a lookup with
    /// a driver needs no other).
    func driver(of query: DocumentQuery, spacedForms: Bool) -> DocumentQueryProbe? {
        for condition in query.conditions where condition.field == "_id" {
            if let probe = DocumentQueryProbe(condition, spacedForms: spacedForms) { return probe }
        }
        let indexed = fields.withLock { $0 }
        for condition in query.conditions where condition.field != "_id" && indexed.contains(condition.field) {
            if let probe = DocumentQueryProbe(condition, spacedForms: spacedForms) { return probe }
        }
        return nil
    }
}
