import Foundation
import OutpostCore

/// `_StoredValue` ↔ `Value`: the storage side's spoke of the value model, whose hub is `Value` (docs/value-model.md).
/// `AnyRealmValue` and SQLite columns reach `Value` through here, as their stored form.
extension _StoredValue {
    /// The value in the document model. An object has no `Value` without its Realm (a link needs the target's
    /// primary key, an embedded object its fields): `object` gives it, at any depth; by default objects are null.
    func value(object: (ObjectBase) -> Value = { _ in .null }) -> Value {
        switch self {
        case .null: .null
        case .bool(let v): .bool(v)
        case .int(let v): .int(v)
        case .float(let v): .float(v)
        case .double(let v): .double(v)
        case .string(let v): .string(v)
        case .data(let v): .data(v)
        case .date(let v): .date(v)
        case .objectId(let v): .objectId(v)
        case .decimal128(let v): .decimal128(v)
        case .uuid(let v): .uuid(v)
        case .object(let o): object(o)
        case .list(let items): .array(items.map { $0.value(object: object) })
        case .dictionary(let d): .document(OutpostCore.Document(d.mapValues { $0.value(object: object) }))
        }
    }

    /// The stored value of a document-model value: an array as a list, a document as a dictionary (as an
    /// `AnyRealmValue` nests them), a link as its primary key (a stored value names objects by reference, which only
    /// a Realm can resolve; callers that follow links do so before converting).
    init(_ value: Value) {
        switch value {
        case .null: self = .null
        case .bool(let v): self = .bool(v)
        case .int(let v): self = .int(v)
        case .float(let v): self = .float(v)
        case .double(let v): self = .double(v)
        case .string(let v): self = .string(v)
        case .data(let v): self = .data(v)
        case .date(let v): self = .date(v)
        case .objectId(let v): self = .objectId(v)
        case .decimal128(let v): self = .decimal128(v)
        case .uuid(let v): self = .uuid(v)
        case .array(let items): self = .list(items.map { _StoredValue($0) })
        case .document(let d): self = .dictionary(d.fields.mapValues { _StoredValue($0) })
        case .link(_, let primaryKey): self = _StoredValue(primaryKey)
        }
    }
}
