import Foundation
import OutpostCore

extension Value {
    /// The value as a plain Swift value, the untyped form `create(_:value:)` takes: integers as `Int64`, null as
    /// `NSNull`, arrays and documents as `[Any]` and `[String: Any]`, a link as its primary key. Query arguments in
    /// Realm's predicate format and the values a download writes through ``ValueConversion`` take this form.
    var swiftValue: Any {
        switch self {
        case .int(let v): v
        case .array(let items): items.map { $0.swiftValue }
        case .document(let d): d.fields.mapValues { $0.swiftValue }
        case .link(_, let primaryKey): primaryKey.swiftValue
        default: _StoredValue(self).anyValue ?? NSNull()
        }
    }
}
