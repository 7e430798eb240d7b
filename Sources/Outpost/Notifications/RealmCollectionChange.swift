import Foundation

/// A change to a collection, delivered to `observe` blocks.
public enum RealmCollectionChange<CollectionType> {
    /// The first delivery, with the collection's contents.
    case initial(CollectionType)
    /// The collection changed. All three arrays are sorted. `deletions` are indices in the previous
    /// version, `insertions` in the new one; `modifications` are indices, in the previous version, of
    /// elements that stayed in place but changed. (Realm's doc comment says "new collection", but Realm
    /// reports previous-version indices, following UITableView's batch-update convention; Outpost does
    /// the same. See docs/notifications.md.)
    case update(CollectionType, deletions: [Int], insertions: [Int], modifications: [Int])
    /// The Realm confined to the delivery queue could not be opened; the block is not called again.
    case error(Error)
}

/// A change to one object, delivered to `Object.observe` blocks.
public enum ObjectChange<T> {
    /// Properties changed, with their old (when known) and new values.
    case change(T, [PropertyChange])
    /// The object was deleted.
    case deleted
    /// Kept for source compatibility with Realm.
    case error(Error)
}

/// One changed property of an object.
public struct PropertyChange {
    /// The property's name.
    public let name: String
    /// The value before the change: only for commits made on another thread or process, and never
    /// for collection properties.
    public let oldValue: Any?
    /// The value after the change; nil for collection properties.
    public let newValue: Any?
}

extension Realm {
    /// What `Realm.observe` reports.
    public enum Notification: String, Sendable {
        /// The Realm advanced to a new version with changes.
        case didChange = "RLMRealmDidChangeNotification"
        /// Another instance committed and this one does not refresh automatically.
        case refreshRequired = "RLMRealmRefreshRequiredNotification"
    }
}
