import Foundation

/// What one or more transactions changed, per class: inserted, deleted and modified rows (with the
/// modified property names). Kept in memory during a write and stored in the history table at commit,
/// so other Realm instances (threads and processes) can compute notifications.
struct ChangeSet {
    struct TableChanges {
        var insertions: Set<Int64> = []
        var deletions: Set<Int64> = []
        /// property name → modified rowids (one set per property, so recording a modification costs
        /// no allocation per row).
        var modifiedRows: [String: Set<Int64>] = [:]

        mutating func delete(_ rowid: Int64) {
            if insertions.remove(rowid) == nil {
                deletions.insert(rowid)
            }
            if !modifiedRows.isEmpty {
                for property in Array(modifiedRows.keys) {
                    modifiedRows[property]!.remove(rowid)
                    if modifiedRows[property]!.isEmpty { modifiedRows[property] = nil }
                }
            }
        }

        mutating func modify(_ rowid: Int64, _ property: String) {
            if insertions.contains(rowid) { return }
            modifiedRows[property, default: []].insert(rowid)
        }
    }

    var tables: [String: TableChanges] = [:]
    /// True when the details are unknown (history pruned): every row may have changed.
    var isUnknown = false

    var isEmpty: Bool { tables.isEmpty && !isUnknown }

    mutating func insert(_ className: String, _ rowid: Int64) {
        tables[className, default: TableChanges()].insertions.insert(rowid)
    }

    mutating func delete(_ className: String, _ rowid: Int64) {
        // Mutate in place (no copy of the sets): this runs once per deleted object.
        tables[className, default: TableChanges()].delete(rowid)
    }

    mutating func modify(_ className: String, _ rowid: Int64, _ property: String) {
        tables[className, default: TableChanges()].modify(rowid, property)
    }

    /// Adds a later change set on top of this one.
    mutating func merge(_ later: ChangeSet) {
        isUnknown = isUnknown || later.isUnknown
        for (name, changes) in later.tables {
            for r in changes.insertions { insert(name, r) }
            for (p, rowids) in changes.modifiedRows { for r in rowids { modify(name, r, p) } }
            for r in changes.deletions { delete(name, r) }
        }
    }

    // MARK: Stored form

    /// Compact JSON: `{"Class": {"i": [[from, to], …], "d": [...], "m": {"prop": [[from, to], …]}}}`.
    var encoded: String {
        var root: [String: JSONValue] = [:]
        for (name, t) in tables {
            root[name] = .object([
                "i": Self.ranges(t.insertions),
                "d": Self.ranges(t.deletions),
                "m": .object(t.modifiedRows.mapValues { Self.ranges($0) }),
            ])
        }
        return JSONValue.object(root).text
    }

    init() {}

    init?(encoded text: String) {
        guard case .object(let root)? = JSONValue.parse(text) else { return nil }
        for (name, value) in root {
            guard case .object(let t) = value else { return nil }
            var changes = TableChanges()
            changes.insertions = Set(Self.expand(t["i"]))
            changes.deletions = Set(Self.expand(t["d"]))
            if case .object(let m)? = t["m"] {
                for (prop, ranges) in m {
                    let rowids = Self.expand(ranges)
                    if !rowids.isEmpty { changes.modifiedRows[prop, default: []].formUnion(rowids) }
                }
            }
            tables[name] = changes
        }
    }

    private static func ranges<S: Sequence<Int64>>(_ rowids: S) -> JSONValue {
        let sorted = rowids.sorted()
        var out: [JSONValue] = []
        var i = 0
        while i < sorted.count {
            var j = i
            while j + 1 < sorted.count, sorted[j + 1] == sorted[j] + 1 { j += 1 }
            out.append(.array([.int(sorted[i]), .int(sorted[j])]))
            i = j + 1
        }
        return .array(out)
    }

    private static func expand(_ value: JSONValue?) -> [Int64] {
        guard case .array(let ranges)? = value else { return [] }
        var out: [Int64] = []
        for r in ranges {
            if case .array(let pair) = r, pair.count == 2, case .int(let a) = pair[0], case .int(let b) = pair[1], a <= b {
                out.append(contentsOf: a...b)
            }
        }
        return out
    }
}
