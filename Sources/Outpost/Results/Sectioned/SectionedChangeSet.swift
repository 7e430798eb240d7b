import Foundation

/// The change of sorted results between two section layouts, as positions: deletions at old positions, insertions
/// at new ones, and the elements that changed but kept their place among the others, at both.
struct FlatChange {
    var deletions: [Int]
    var insertions: [Int]
    /// Elements that kept their place: those `Results.observe` reported modified, and those whose section key changed
    /// (Realm reports an element that changed section whatever the key paths watched).
    var modifications: [(old: Int, new: Int)]

    /// From `Results.observe`'s change (modifications at old positions) when it leads from `old` to `new`. Should it
    /// not (the results' snapshot and the layout taken at another version), from a diff of the two layouts' elements,
    /// without reported modifications: index paths that stay within both versions, whatever happened.
    init<Key: Hashable>(deletions: [Int], insertions: [Int], modifications: [Int],
                        from old: SectionLayout<Key>, to new: SectionLayout<Key>) {
        let (oldIDs, newIDs) = (old.identities, new.identities)
        var (gone, added, reported) = (deletions, insertions, modifications)
        if !Self.leads(deletions: deletions, insertions: insertions, from: oldIDs, to: newIDs) {
            let diff = CollectionDiff(old: oldIDs, new: newIDs)
            (gone, added, reported) = (diff.deletions, diff.insertions, [])
        }
        // The elements that stayed keep their order: the n-th one left in the old version is the n-th in the new.
        let deleted = Set(gone)
        let inserted = Set(added)
        let keptOld = oldIDs.indices.filter { !deleted.contains($0) }
        let kept = Array(zip(keptOld, newIDs.indices.filter { !inserted.contains($0) }))
        let newPositionOf = Dictionary(uniqueKeysWithValues: kept)
        var modified = Set(reported)
        for (oldPosition, newPosition) in kept
        where old.keys[old.slots[oldPosition].section] != new.keys[new.slots[newPosition].section] {
            modified.insert(oldPosition)
        }
        self.deletions = gone
        self.insertions = added
        self.modifications = modified.sorted().compactMap { position in
            newPositionOf[position].map { (old: position, new: $0) }
        }
    }

    /// Whether removing `deletions` from `old` and `insertions` from `new` leaves the same elements in the same order.
    private static func leads(deletions: [Int], insertions: [Int], from old: [ObservationKey], to new: [ObservationKey])
        -> Bool
    {
        guard deletions.allSatisfy({ old.indices.contains($0) }), insertions.allSatisfy({ new.indices.contains($0) })
        else { return false }
        let deleted = Set(deletions)
        let inserted = Set(insertions)
        let keptOld = old.indices.filter { !deleted.contains($0) }
        let keptNew = new.indices.filter { !inserted.contains($0) }
        return keptOld.count == keptNew.count && zip(keptOld, keptNew).allSatisfy { old[$0] == new[$1] }
    }
}

/// One sectioned notification: the flat change of the sorted results mapped to index paths through the sections
/// before and after, by Realm's rules:
///
/// - a section whose key is new is inserted, one whose key is gone deleted;
/// - a deleted element is reported at its old index path, unless its whole section was deleted;
/// - an inserted element at its new index path, also inside an inserted section;
/// - a modified element stays a modification only if it is at the same item of its (old and new) section; else it
///   is a deletion at its old index path and an insertion at its new one (it moved, maybe to another section),
///   but not when its old section was deleted.
///
/// Observing one section (`only` a key) keeps the index paths that fall in that section, with the section's index
/// among all sections.
struct SectionedChangeSet {
    var deletions: [IndexPath] = []
    var insertions: [IndexPath] = []
    var modifications: [IndexPath] = []
    var sectionsToInsert = IndexSet()
    var sectionsToDelete = IndexSet()

    var isEmpty: Bool {
        deletions.isEmpty && insertions.isEmpty && modifications.isEmpty && sectionsToInsert.isEmpty
            && sectionsToDelete.isEmpty
    }

    init<Key: Hashable>(from old: SectionLayout<Key>, to new: SectionLayout<Key>, change: FlatChange, only key: Key?) {
        // The sections looked at: all, or the one of `key` (nil when it has no elements in that version).
        let oldSection = key.flatMap { old.sectionOfKey[$0] }
        let newSection = key.flatMap { new.sectionOfKey[$0] }
        let watchesOld: (Int) -> Bool = { key == nil || $0 == oldSection }
        let watchesNew: (Int) -> Bool = { key == nil || $0 == newSection }

        var sectionsToInsert = IndexSet()
        var sectionsToDelete = IndexSet()
        for (index, sectionKey) in new.keys.enumerated() where watchesNew(index) {
            if old.sectionOfKey[sectionKey] == nil { sectionsToInsert.insert(index) }
        }
        for (index, sectionKey) in old.keys.enumerated() where watchesOld(index) {
            if new.sectionOfKey[sectionKey] == nil { sectionsToDelete.insert(index) }
        }

        // Rows by section: item indices in each section.
        var deleted: [Int: Set<Int>] = [:]
        var inserted: [Int: Set<Int>] = [:]
        var modifiedOld: [Int: Set<Int>] = [:]
        var modifiedNew: [Int: Set<Int>] = [:]
        for position in change.deletions {
            let slot = old.slots[position]
            if watchesOld(slot.section) && !sectionsToDelete.contains(slot.section) {
                deleted[slot.section, default: []].insert(slot.item)
            }
        }
        for position in change.insertions {
            let slot = new.slots[position]
            if watchesNew(slot.section) { inserted[slot.section, default: []].insert(slot.item) }
        }
        for (oldPosition, newPosition) in change.modifications {
            let oldSlot = old.slots[oldPosition]
            let newSlot = new.slots[newPosition]
            if watchesOld(oldSlot.section) { modifiedOld[oldSlot.section, default: []].insert(oldSlot.item) }
            if watchesNew(newSlot.section) { modifiedNew[newSlot.section, default: []].insert(newSlot.item) }
        }

        // A modification stays one where the same item is modified in the old and the new section of its key.
        var modified: [Int: Set<Int>] = [:]
        for (section, items) in modifiedOld {
            guard let newIndex = new.sectionOfKey[old.keys[section]] else { continue }  // the section was deleted
            let stayed = items.intersection(modifiedNew[newIndex] ?? [])
            modifiedNew[newIndex]?.subtract(stayed)
            deleted[section, default: []].formUnion(items.subtracting(stayed))
            modified[section] = stayed
        }
        for (section, items) in modifiedNew { inserted[section, default: []].formUnion(items) }

        self.deletions = Self.indexPaths(deleted)
        self.insertions = Self.indexPaths(inserted)
        self.modifications = Self.indexPaths(modified)
        self.sectionsToInsert = sectionsToInsert
        self.sectionsToDelete = sectionsToDelete
    }

    /// Items by section as index paths, sorted by section, then item.
    private static func indexPaths(_ items: [Int: Set<Int>]) -> [IndexPath] {
        items.keys.sorted().flatMap { section in
            (items[section] ?? []).sorted().map { IndexPath(indexes: [section, $0]) }
        }
    }
}
