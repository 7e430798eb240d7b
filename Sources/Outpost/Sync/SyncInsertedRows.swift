import Foundation

/// The column values of the rows one transaction inserted into one table, as the insert bound them, kept by the
/// `SyncRecorder` so that the commit writes the upload's `create` instructions from them (`RowJSONWriter`)
/// instead of reading every new row back.
///
/// Only a run of consecutive rowids is kept (the rowids the insert buffer hands out). Anything else — a rowid out
/// of the run, a column written after the insert, more than ``limit`` rows — drops the values, and the commit reads
/// the rows as it always did. The values are given back as SQLite returns them (``stored(_:)``).
struct SyncInsertedRows {
    /// Rows kept at most per table and transaction: a larger bulk insert is read back instead of held twice.
    static let limit = 50_000

    private let first: Int64
    private var values: [[SQLiteValue]] = []
    private(set) var isValid = true

    init(first: Int64) {
        self.first = first
    }

    mutating func append(_ rowid: Int64, _ row: [SQLiteValue]) {
        guard isValid else { return }
        guard rowid == first + Int64(values.count), values.count < Self.limit else { return invalidate() }
        values.append(row)
    }

    mutating func invalidate() {
        isValid = false
        values = []
    }

    /// The kept values of `rowids` (sorted), or nil unless every one of them is kept.
    func slice(_ rowids: [Int64]) -> Slice? {
        guard isValid, let low = rowids.first, let high = rowids.last,
            low >= first, high < first + Int64(values.count) else { return nil }
        return Slice(rows: values, first: first, rowids: rowids)
    }

    /// Kept rows in rowid order, each as SQLite stores it.
    struct Slice: Sequence {
        let rows: [[SQLiteValue]]
        let first: Int64
        let rowids: [Int64]

        func makeIterator() -> Iterator { Iterator(slice: self) }

        struct Iterator: IteratorProtocol {
            let slice: Slice
            var i = 0

            mutating func next() -> [SQLiteValue]? {
                guard i < slice.rowids.count else { return nil }
                defer { i += 1 }
                return SyncInsertedRows.stored(slice.rows[Int(slice.rowids[i] - slice.first)])
            }
        }
    }

    /// A row's values as SQLite gives them back: a NaN is stored as NULL, and a REAL column stores -0.0 as the
    /// integer 0, read back as 0.0.
    @inline(__always)
    static func stored(_ row: [SQLiteValue]) -> [SQLiteValue] {
        var row = row
        for i in row.indices {
            if case .real(let v) = row[i], v.isNaN || v == 0 {
                row[i] = v.isNaN ? .null : .real(0)
            }
        }
        return row
    }
}
