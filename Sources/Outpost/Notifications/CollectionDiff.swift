import Foundation

/// Deletions (old indices) and insertions (new indices) between two orderings of distinct keys. A key
/// that moved counts as deleted at its old index and inserted at its new one; the keys that keep their
/// relative order (a longest increasing run of old positions) stay.
struct CollectionDiff<Key: Hashable> {
    var deletions: [Int] = []
    var insertions: [Int] = []
    /// Keys inserted or moved.
    var insertedKeys: Set<Key> = []

    init(old: [Key], new: [Key]) {
        let newSet = Set(new)
        var oldIndex: [Key: Int] = [:]
        for (i, key) in old.enumerated() where oldIndex[key] == nil { oldIndex[key] = i }
        for (i, key) in old.enumerated() where !newSet.contains(key) { deletions.append(i) }
        let kept = new.enumerated().compactMap { (i, key) in oldIndex[key].map { (newIndex: i, oldIndex: $0) } }
        var staying = Set<Int>()
        for k in Self.longestIncreasing(kept.map(\.oldIndex)) { staying.insert(kept[k].newIndex) }
        for (i, key) in new.enumerated() where oldIndex[key] == nil || !staying.contains(i) {
            insertions.append(i)
            insertedKeys.insert(key)
            if let o = oldIndex[key] { deletions.append(o) }
        }
        deletions.sort()
    }

    /// Positions (in `values`) of one longest strictly increasing subsequence.
    static func longestIncreasing(_ values: [Int]) -> [Int] {
        var tails: [Int] = []
        var tailIndex: [Int] = []
        var parent = Array(repeating: -1, count: values.count)
        for (i, v) in values.enumerated() {
            var lo = 0
            var hi = tails.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if tails[mid] < v { lo = mid + 1 } else { hi = mid }
            }
            if lo > 0 { parent[i] = tailIndex[lo - 1] }
            if lo == tails.count {
                tails.append(v)
                tailIndex.append(i)
            } else {
                tails[lo] = v
                tailIndex[lo] = i
            }
        }
        var out: [Int] = []
        var k = tailIndex.last ?? -1
        while k >= 0 {
            out.append(k)
            k = parent[k]
        }
        return out.reversed()
    }
}

/// An element with its occurrence number, so a list holding the same value twice diffs as distinct keys.
struct Occurrence<Value: Hashable>: Hashable {
    let value: Value
    let index: Int

    static func number(_ values: [Value]) -> [Occurrence] {
        var seen: [Value: Int] = [:]
        return values.map { value in
            let n = seen[value, default: 0]
            seen[value] = n + 1
            return Occurrence(value: value, index: n)
        }
    }
}
