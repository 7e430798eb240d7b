import Foundation
import OutpostCore

/// What one or more transactions changed, per class: inserted, deleted and modified rows (with the
/// modified property names). Kept in memory during a write and stored in the history table at commit,
/// so other Realm instances (threads and processes) can compute notifications.
struct ChangeSet {
    struct TableChanges {
        /// Inserted rowids: a run of consecutive ones (objects added one after the other, the common
        /// case, cost nothing per row) plus the others.
        private(set) var insertedRun: ClosedRange<Int64>?
        private(set) var insertedOthers: Set<Int64> = []
        var deletions: Set<Int64> = []
        /// property name → modified rowids (one set per property, so recording a modification costs
        /// no allocation per row).
        var modifiedRows: [String: Set<Int64>] = [:]

        var insertions: Set<Int64> {
            get {
                guard let run = insertedRun else { return insertedOthers }
                return insertedOthers.union(run)
            }
            set {
                insertedRun = nil
                insertedOthers = newValue
            }
        }

        /// Whether any rowid was inserted (without making the set of them).
        var hasInsertions: Bool { insertedRun != nil || !insertedOthers.isEmpty }

        /// The inserted rowids in increasing order.
        var sortedInsertions: [Int64] {
            guard let run = insertedRun else { return insertedOthers.sorted() }
            return insertedOthers.isEmpty ? Array(run) : insertions.sorted()
        }

        func isInserted(_ rowid: Int64) -> Bool {
            (insertedRun?.contains(rowid) ?? false) || (!insertedOthers.isEmpty && insertedOthers.contains(rowid))
        }

        mutating func insert(_ rowid: Int64) {
            if let run = insertedRun {
                if rowid == run.upperBound &+ 1 && rowid != Int64.min {
                    insertedRun = run.lowerBound...rowid
                } else if !run.contains(rowid) {
                    insertedOthers.insert(rowid)
                }
            } else if insertedOthers.isEmpty {
                insertedRun = rowid...rowid
            } else {
                insertedOthers.insert(rowid)
            }
        }

        /// Removes an inserted rowid; false if it was not inserted.
        mutating func removeInserted(_ rowid: Int64) -> Bool {
            if let run = insertedRun, run.contains(rowid) {
                insertedRun = nil
                if run.lowerBound < rowid { insertedRun = run.lowerBound...(rowid - 1) }
                if rowid < run.upperBound {
                    let above = (rowid + 1)...run.upperBound
                    if insertedRun == nil { insertedRun = above } else { insertedOthers.formUnion(above) }
                }
                return true
            }
            return !insertedOthers.isEmpty && insertedOthers.remove(rowid) != nil
        }

        mutating func delete(_ rowid: Int64) {
            if !removeInserted(rowid) {
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
            if isInserted(rowid) { return }
            modifiedRows[property, default: []].insert(rowid)
        }
    }

    var tables: [String: TableChanges] = [:]
    /// True when the details are unknown (history pruned): every row may have changed.
    var isUnknown = false

    var isEmpty: Bool { tables.isEmpty && !isUnknown }

    mutating func insert(_ className: String, _ rowid: Int64) {
        tables[className, default: TableChanges()].insert(rowid)
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
            if let run = changes.insertedRun { for r in run { insert(name, r) } }
            for r in changes.insertedOthers { insert(name, r) }
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
                "i": t.insertedOthers.isEmpty
                    ? .array(t.insertedRun.map { [.array([.int($0.lowerBound), .int($0.upperBound)])] } ?? [])
                    : Self.ranges(t.insertions),
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
            for r in Self.expand(t["i"]) { changes.insert(r) }
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
