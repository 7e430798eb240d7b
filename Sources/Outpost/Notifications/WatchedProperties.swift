import Foundation
import OutpostCore

/// The properties an observer watches, from its key paths: every property and the objects they link
/// to (to a depth, as Realm does when no key paths are given), or named properties, each with the
/// properties of its linked objects (`"dogs.name"`).
indirect enum WatchedProperties {
    case all(depth: Int)
    case named([String: WatchedProperties?])

    /// Realm follows links four levels deep when no key paths are given.
    static let defaultDepth = 4

    init(keyPaths: [String]?) {
        guard let keyPaths else {
            self = .all(depth: Self.defaultDepth)
            return
        }
        var root: [String: WatchedProperties?] = [:]
        for path in keyPaths {
            Self.insert(path.split(separator: ".").map(String.init)[...], into: &root)
        }
        self = .named(root)
    }

    private static func insert(_ components: ArraySlice<String>, into tree: inout [String: WatchedProperties?]) {
        guard let first = components.first else { return }
        let rest = components.dropFirst()
        guard !rest.isEmpty else {
            if tree[first] == nil { tree[first] = .some(nil) }
            return
        }
        var nested: [String: WatchedProperties?] = [:]
        if case .some(.some(.named(let existing))) = tree[first] { nested = existing }
        insert(rest, into: &nested)
        tree[first] = .some(.some(.named(nested)))
    }

    /// Whether a direct change to `property` counts.
    func watches(_ property: String) -> Bool {
        switch self {
        case .all: true
        case .named(let names): names[property] != nil
        }
    }

    /// What is watched in the objects `property` links to, if anything.
    func nested(_ property: String) -> WatchedProperties? {
        switch self {
        case .all(let depth): depth > 0 ? .all(depth: depth - 1) : nil
        case .named(let names): names[property] ?? nil
        }
    }

    /// The rows of `table` that count as modified by `changes`, with the names of their properties that
    /// changed (a link property names a change inside the objects it links to). `candidates` limits the
    /// rows considered; nil considers every modified row.
    func modifiedRows(of table: TableInfo, in changes: ChangeSet, realm: RealmInstance, candidates: Set<Int64>?)
        -> [Int64: Set<String>]
    {
        var out: [Int64: Set<String>] = [:]
        if changes.isUnknown {
            let names = Set(table.schema.allProperties.map(\.name).filter(watches))
            for r in candidates ?? [] { out[r] = names }
            return out
        }
        if let direct = changes.tables[table.className] {
            for (property, rowids) in direct.modifiedRows where watches(property) {
                for rowid in rowids where candidates?.contains(rowid) ?? true { out[rowid, default: []].insert(property) }
            }
        }
        for property in table.schema.allProperties where property.type == .object {
            guard let nested = nested(property.name), let targetName = property.objectClassName,
                let target = realm.table(named: targetName), !target.isMissing
            else { continue }
            let changedTargets = nested.modifiedRows(of: target, in: changes, realm: realm, candidates: nil)
            guard !changedTargets.isEmpty else { continue }
            for rowid in Self.rows(of: table, linkingThrough: property, to: changedTargets.keys, realm: realm)
            where candidates?.contains(rowid) ?? true {
                out[rowid, default: []].insert(property.name)
            }
        }
        return out
    }

    /// The rows of `table` whose link property (single, list, set or map) refers to one of `targets`.
    private static func rows<S: Sequence<Int64>>(of table: TableInfo, linkingThrough property: Property, to targets: S,
                                                  realm: RealmInstance) -> [Int64]
    {
        guard !table.isMissing else { return [] }
        let column = SQL.quote(property.columnName)
        let list = JSONValue.array(targets.map { .int($0) }).text
        let sql = property.collection == .none
            ? "SELECT rowid FROM \(table.sqlName) WHERE \(column) IN (SELECT value FROM json_each(?))"
            : "SELECT rowid FROM \(table.sqlName) t WHERE EXISTS (SELECT 1 FROM json_each(t.\(column)) "
                + "WHERE value IN (SELECT value FROM json_each(?)))"
        guard let rows = try? realm.connection.cached(sql).rows([.text(list)]) else { return [] }
        return rows.compactMap { if case .integer(let r) = $0[0] { r } else { nil } }
    }
}
