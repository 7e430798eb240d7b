import Foundation

/// A change to sectioned results or to one section, delivered to their `observe` blocks (Realm's cases).
///
/// The index paths follow `RealmCollectionChange`'s convention, section by section: `deletions` and
/// `modifications` are positions in the previous version, `insertions` in the new one. An element that changed
/// place or section is a deletion and an insertion. Elements of a deleted section are not listed (the section is);
/// elements of an inserted section are.
public enum SectionedResultsChange<Collection> {
    /// The first delivery, with the sections as they are.
    case initial(Collection)
    /// A commit changed the sections. The arrays are sorted by section, then item.
    ///
    /// - Parameters:
    ///   - deletions: Positions, in the previous version, of elements that left their place.
    ///   - insertions: Positions, in the new version, of elements that arrived.
    ///   - modifications: Positions, in the previous version, of elements that changed but kept their place.
    ///   - sectionsToInsert: Indices, in the new version, of sections whose key is new.
    ///   - sectionsToDelete: Indices, in the previous version, of sections whose key has no elements any more.
    case update(Collection, deletions: [IndexPath], insertions: [IndexPath], modifications: [IndexPath],
                sectionsToInsert: IndexSet, sectionsToDelete: IndexSet)

    /// `.initial` without a change set, else `.update` with its index paths.
    init(_ collection: Collection, _ changes: SectionedChangeSet?) {
        guard let changes else {
            self = .initial(collection)
            return
        }
        self = .update(collection, deletions: changes.deletions, insertions: changes.insertions,
                       modifications: changes.modifications, sectionsToInsert: changes.sectionsToInsert,
                       sectionsToDelete: changes.sectionsToDelete)
    }
}

/// Realm's former name.
@available(*, deprecated, renamed: "SectionedResultsChange")
public typealias RealmSectionedResultsChange = SectionedResultsChange
