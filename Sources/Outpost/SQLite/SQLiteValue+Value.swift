import Foundation
import OutpostCore

/// `SQLiteValue` ↔ `Value` for a scalar column: a column means something only for its property's type, so both ways
/// go through the column codec (``ValueCoding``) and the stored value, never a ladder of their own.
extension SQLiteValue {
    /// The document-model value of a column of a single scalar property of `type` (not a link, not mixed), read as
    /// rows are read.
    func value(type: PropertyType) -> Value {
        ValueCoding.scalar(self, type: type).value()
    }

    /// The column of a scalar value for a single scalar property of `type`, converted as Realm converts numbers
    /// between numeric types; nil for null (whether a property takes it is the caller's question), arrays, documents,
    /// links, and values of another type.
    init?(_ value: Value, type: PropertyType) {
        switch value {
        case .null, .array, .document, .link: return nil
        default:
            guard let converted = RealmInstance.convert(_StoredValue(value), to: type) else { return nil }
            self = ValueCoding.column(converted)
        }
    }
}
