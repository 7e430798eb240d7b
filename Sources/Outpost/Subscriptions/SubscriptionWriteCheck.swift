import Foundation
import OutpostCore

/// Checks a flexible sync transaction at commit: every top-level class written must have a subscription in the
/// latest set (Realm's rule), and — Outpost-only, when `rejectsWritesOutsideSubscriptions` is on — every created
/// or changed object must match one of its class's subscription queries.
struct SubscriptionWriteCheck {
    let realm: RealmInstance
    let checkObjects: Bool

    func check(_ changes: ChangeSet) throws {
        let (_, records) = SyncSubscriptionSet.readLatest(realm)
        let subscribed = Set(records.map(\.className))
        for className in changes.tables.keys.sorted() {
            // Asymmetric objects are only uploaded: they need no subscription (and cannot have one).
            guard let table = realm.tablesByName[className] ?? realm.table(named: className), !table.schema.isEmbedded,
                !table.schema.isAsymmetric
            else { continue }
            let t = changes.tables[className]!
            let touched = t.hasInsertions || !t.deletions.isEmpty || !t.modifiedRows.isEmpty
            guard touched else { continue }
            if !subscribed.contains(className) {
                throw Realm.Error(.noSubscriptionForWrite,
                    "Cannot write to class \(className) when no flexible sync subscription has been created.")
            }
            guard checkObjects else { continue }
            var queries: [ParsedQuery] = []
            for r in records where r.className == className {
                if let q = try? QueryParser.parse(r.query) { queries.append(q) }
            }
            var rowids = t.insertions
            for (_, r) in t.modifiedRows { rowids.formUnion(r) }
            let evaluator = QueryEvaluator()
            for rowid in rowids.sorted() {
                guard let document = realm.syncDocument(table, rowid: rowid) else { continue }
                if !queries.contains(where: { (try? evaluator.matches($0, document)) == true }) {
                    let pk = table.primaryKeyProperty.flatMap { document[table.schema.allProperties[$0].columnName] } ?? .null
                    throw Realm.Error(.noSubscriptionForWrite,
                        "Cannot write to object \"\(pk.subscriptionText)\" of class \(className): it matches none of the "
                            + "class's subscriptions.")
                }
            }
        }
    }
}

extension Value {
    /// A primary key's plain text (ObjectId hex, integer, string, UUID).
    var subscriptionText: String {
        switch self {
        case .objectId(let v): v.stringValue
        case .int(let v): String(v)
        case .string(let v): v
        case .uuid(let v): v.uuidString.lowercased()
        default: "\(self)"
        }
    }
}
