import Foundation
import OutpostCore

extension Query where T == AnyRealmValue {
    /// The element at `position` of a list nested in the mixed value: `anyCol[0] == 1`. Matches nothing where the
    /// value is no list or the list is shorter.
    public subscript(position: Int) -> Query<AnyRealmValue> {
        Query<AnyRealmValue>(node.erasingAny(appending: .index(position)))
    }

    /// The value for `key` of a dictionary nested in the mixed value: `anyCol["name"] == "Rex"`. Matches nothing
    /// where the value is no dictionary or has no such key.
    public subscript(key: String) -> Query<AnyRealmValue> {
        Query<AnyRealmValue>(node.erasingAny(appending: .mapKey(key)))
    }

    /// Every element (of a nested list) or value (of a nested dictionary): `anyCol.any == 1` matches when one does
    /// (`anyCol[*]` in Realm's query language).
    public var any: Query<AnyRealmValue> {
        Query<AnyRealmValue>(node.erasingAny(appending: .all))
    }
}
