import Foundation

/// What `SectionedResults` and each of its `ResultsSection`s share (Realm's protocol): a random-access collection
/// confined to its Realm's thread, that can be frozen, thawed and observed.
///
/// Realm's protocol also refines `ThreadConfined`; Outpost's does not (a `ThreadSafeReference` would have to carry
/// the key block), so sectioned results cross threads frozen, or are observed on a queue or an actor.
public protocol RealmSectionedResult: RandomAccessCollection, Equatable {
    /// The Realm the sorted results belong to.
    var realm: Realm? { get }
    /// Whether the Realm was invalidated (for a section: also whether its key has no elements any more).
    var isInvalidated: Bool { get }
    /// The number of sections, or of elements in a section.
    var count: Int { get }
    /// Whether this is a frozen snapshot, usable from any thread.
    var isFrozen: Bool { get }
    /// The same sections over a frozen copy of the Realm at its current version.
    func freeze() -> Self
    /// The live version in the current thread's Realm (`self` when live); nil when it no longer exists there.
    func thaw() -> Self?
    /// Calls `block` with the initial sections (on the next turn of this thread's run loop, or on `queue`) and after
    /// every commit that changes them, with the changes as index paths (see `SectionedResultsChange`).
    ///
    /// - Parameters:
    ///   - keyPaths: Only changes to these properties of the elements count as modifications; nil watches every
    ///     property, as `Results.observe` does. Elements that move or change section are always reported.
    ///   - queue: A serial queue to deliver on, with the sections recomputed in a Realm confined to it.
    ///   - block: Called with each change.
    /// - Returns: A token; notifications stop when it is invalidated or released.
    func observe(keyPaths: [String]?, on queue: DispatchQueue?,
                 _ block: @escaping (SectionedResultsChange<Self>) -> Void) -> NotificationToken
}

extension RealmSectionedResult {
    /// `observe(keyPaths:on:_:)` with Realm's defaults: every property, on this thread's run loop.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (SectionedResultsChange<Self>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths, on: queue, block)
    }
}

extension RealmSectionedResult where Element: RealmSectionedResult, Element.Element: ObjectBase {
    /// `observe(keyPaths:on:_:)` with the watched properties named by key paths of the objects.
    public func observe(keyPaths: [PartialKeyPath<Element.Element>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (SectionedResultsChange<Self>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths.map { _name(for: $0) }, on: queue, block)
    }
}

extension RealmSectionedResult where Element: ObjectBase {
    /// `observe(keyPaths:on:_:)` with the watched properties named by key paths of the objects.
    public func observe(keyPaths: [PartialKeyPath<Element>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (SectionedResultsChange<Self>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths.map { _name(for: $0) }, on: queue, block)
    }
}
