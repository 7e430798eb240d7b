import Foundation
import OutpostCore

/// Reading a value for `create(_:value:)` (and the migration and sync paths that share it): bad input fails the write
/// transaction at commit, and a nested value becomes a new row of the linked class.
struct ManagedObjectInput: ObjectInputContext {
    let realm: RealmInstance

    var convertsTypes: Bool { false }

    func fail(_ message: String) {
        realm.fail(Realm.Error(.invalidInput, message))
    }

    func object(from value: Any, for property: Property) -> ObjectBase? {
        guard let target = realm.table(named: property.objectClassName ?? ""), let type = target.objectType else {
            fail("Outpost has no Swift class for '\(property.objectClassName ?? "?")' in this process.")
            return nil
        }
        guard let contents = ValueConversion.contents(of: value, for: target, realm: realm) else { return nil }
        let object = type.init()
        guard let row = realm.insertRow(target, contents: contents, update: .error, object: object) else { return nil }
        // Until a parent links it, a new embedded object has none; the commit checks that one did.
        if target.schema.isEmbedded { realm.parentlessEmbeddedRows.insert(ObjectIdentifier(row)) }
        return object
    }
}
