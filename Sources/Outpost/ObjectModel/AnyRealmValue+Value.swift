import Foundation
import OutpostCore

/// `Value` → `AnyRealmValue`, through the stored form every Realm type converts to and from (`_store()`/`_load(_:)`,
/// the persistence protocol). The other way is `_store()` then `_StoredValue.value(object:)`.
extension AnyRealmValue {
    /// The `AnyRealmValue` of a document-model value (a primary key of a compensating write): an array as a new list,
    /// a document as a new dictionary, a link as its primary key.
    init(_ value: Value) {
        self = Self._load(_StoredValue(value)) ?? AnyRealmValue.none
    }
}
