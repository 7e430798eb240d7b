import Foundation

/// A change to a collection, delivered to `observe` blocks.
public enum RealmCollectionChange<CollectionType> {
    /// The first delivery, with the collection's contents.
    case initial(CollectionType)
    /// The collection changed: indices of deleted (in the old version), inserted and modified
    /// (in the new version) elements.
    case update(CollectionType, deletions: [Int], insertions: [Int], modifications: [Int])
    /// Outpost never fails to deliver; kept for source compatibility with Realm.
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
    /// The value before the change, when this thread had read it.
    public let oldValue: Any?
    /// The value after the change.
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
