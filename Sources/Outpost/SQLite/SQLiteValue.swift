import Foundation

/// A value as SQLite stores it.
enum SQLiteValue: Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}
