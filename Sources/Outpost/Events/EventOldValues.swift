import Foundation

/// What a write transaction captured for its write event while a scope was active: each modified or deleted row as
/// it was before the transaction, with the row's storage (whose values are the new ones at commit). Kept per table,
/// the last table used at hand, so a run of changes to one class looks up one rowid each (no class name hashing).
struct EventOldValues {
    /// One table's captured rows, by rowid.
    final class Rows {
        let table: TableInfo
        var byRowid: [Int64: (object: EventObject, row: ManagedRow)] = [:]

        init(table: TableInfo) {
            self.table = table
        }
    }

    private var tables: [ObjectIdentifier: Rows] = [:]
    private var last: Rows?

    /// The captured rows of a table (created empty the first time).
    @inline(__always)
    mutating func rows(of table: TableInfo) -> Rows {
        if let last, last.table === table { return last }
        let rows = tables[ObjectIdentifier(table)] ?? {
            let rows = Rows(table: table)
            tables[ObjectIdentifier(table)] = rows
            return rows
        }()
        last = rows
        return rows
    }

    /// The captured rows of a table, if any.
    func captured(_ table: TableInfo) -> Rows? {
        tables[ObjectIdentifier(table)]
    }

    mutating func removeAll() {
        if tables.isEmpty { return }
        tables.removeAll()
        last = nil
    }
}
