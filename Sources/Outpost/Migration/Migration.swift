import Foundation
import OutpostCore

/// What a migration block receives: access to the old and new data of each class.
public final class Migration {
    let realm: RealmInstance
    /// The schema stored in the file before the migration.
    public let oldSchema: Schema
    /// The schema after the migration.
    public let newSchema: Schema

    init(realm: RealmInstance, oldSchema: Schema, newSchema: Schema) {
        self.realm = realm
        self.oldSchema = oldSchema
        self.newSchema = newSchema
    }
}

/// Runs a schema migration. (Placeholder until the full migration lands: applies the additive SQL,
/// rebuilds changed classes with default values, and stores the new schema.)
struct MigrationRunner {
    let realm: RealmInstance
    let types: [ObjectBase.Type]
    let plan: SchemaPlan

    func run() throws {
        try realm.applySchema(types: types, plan: plan)
    }
}
