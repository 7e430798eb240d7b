import Foundation
import OutpostCore

/// An object that is only uploaded (Realm's `AsymmetricObject`): `realm.create(_:value:)` makes one in a write
/// transaction of a flexible-sync Realm; the commit uploads it and removes it from the device, and the server inserts
/// it into its collection, where it is never downloaded by any device. Telemetry, logs and other write-only data.
///
/// ```swift
/// class Reading: AsymmetricObject {
///     @Persisted(primaryKey: true) var _id: ObjectId
///     @Persisted var sensor: String
///     @Persisted var value: Double
/// }
/// try realm.write { realm.create(Reading.self, value: ["_id": ObjectId.generate(), "sensor": "a", "value": 1.5]) }
/// ```
///
/// It cannot be queried, observed, linked to (embedded objects inside it are fine) nor opened in a local or
/// partition-based Realm; the server takes it in the collections its app lists in `asymmetric_tables`.
open class AsymmetricObject: ObjectBase {
    public required init() {
        super.init()
    }

    /// Creates an unmanaged object from `value`, as `Object.init(value:)` does.
    public convenience init(value: Any) {
        self.init()
        UnmanagedObjectInput.populate(self, from: value)
    }
}

extension Realm {
    /// Creates an asymmetric object from a dictionary of property values, an array of values in property order or
    /// another object. Nothing is returned: the object is uploaded and removed from the device when the write
    /// commits. A second object with a primary key created in the same write fails the write, as in Realm.
    public func create<T: AsymmetricObject>(_ type: T.Type, value: Any = [String: Any]()) {
        instance.requireWrite()
        let table = instance.table(for: type)
        guard let contents = ValueConversion.contents(of: value, for: table, realm: instance) else { return }
        _ = instance.insertRow(table, contents: contents, update: .error, object: nil)
    }
}

extension Realm.Configuration {
    /// Whether a Realm of this configuration can hold asymmetric objects (with flexible sync only): the default schema
    /// of one that cannot leaves them out.
    var holdsAsymmetricObjects: Bool { syncConfiguration?.enableFlexibleSync == true }

    /// Realm's schema checks of asymmetric classes for a Realm of this configuration
    /// (``RealmInstance/asymmetricSchemaErrors(_:isFlexibleSync:isSynced:)``).
    func asymmetricSchemaErrors(_ schemas: [ObjectSchema]) -> [String] {
        RealmInstance.asymmetricSchemaErrors(schemas, isFlexibleSync: syncConfiguration?.enableFlexibleSync ?? false,
                                             isSynced: syncConfiguration != nil)
    }
}

extension RealmInstance {
    /// Removes the objects of asymmetric classes written in this transaction, after their creation was recorded for
    /// upload: they leave the device at the commit, as in Realm. The upload recorder calls it while it ignores the
    /// rows changed (``SyncRecorder/isSuspended``), so the removal is not uploaded. Only the tables the transaction
    /// wrote are looked at (a commit without asymmetric objects costs a lookup per written table).
    func removeAsymmetricObjects(written: ChangeSet) {
        let tables = written.tables.keys.compactMap { tablesByName[$0] }.filter(\.schema.isAsymmetric)
        guard !tables.isEmpty else { return }
        for table in tables {
            let rowids = (try? connection.cached("SELECT rowid FROM \(table.sqlName)").rows()) ?? []
            for value in rowids {
                guard case .integer(let rowid) = value[0] else { continue }
                deleteRow(row(table, rowid))
            }
        }
    }

    /// Realm's schema checks of asymmetric classes: only in a flexible-sync Realm, and never the target of a link.
    static func asymmetricSchemaErrors(_ schemas: [ObjectSchema], isFlexibleSync: Bool, isSynced: Bool) -> [String] {
        let asymmetric = Set(schemas.filter(\.isAsymmetric).map(\.className))
        guard !asymmetric.isEmpty else { return [] }
        var errors: [String] = []
        for schema in schemas.sorted(by: { $0.className < $1.className }) {
            if schema.isAsymmetric, !isFlexibleSync {
                errors.append(isSynced
                    ? "Asymmetric table '\(schema.className)' not allowed in partition based sync"
                    : "Asymmetric table '\(schema.className)' not allowed in a local Realm")
            }
            for property in schema.allProperties where property.type == .object {
                if let target = property.objectClassName, asymmetric.contains(target) {
                    let kind = property.collection == .list ? "array" : property.collection == .none ? "object"
                        : property.collection.rawValue
                    errors.append("Property '\(schema.className).\(property.name)' of type '\(kind)' cannot be a link "
                        + "to an asymmetric object.")
                }
            }
        }
        return errors
    }
}
