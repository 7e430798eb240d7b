import Foundation

/// The elements of `SectionedResults` that share one key, in sort order (Realm's type).
///
/// A section stands for its key, not for a position: it is found again by key in the sectioned results each time it
/// is read, so after a change it holds the key's elements as they are now, wherever the section moved. Once the key
/// has no elements left the section is invalidated, and reading it traps with Realm's text.
public struct ResultsSection<Key: _Persistable & Hashable, T: RealmCollectionValue>: RealmSectionedResult,
    Identifiable
{
    public typealias Element = T

    /// The sectioned results the section is part of.
    let parent: SectionedResults<Key, T>
    /// The key, whether or not it still has elements.
    let sectionKey: Key

    init(parent: SectionedResults<Key, T>, key: Key) {
        self.parent = parent
        self.sectionKey = key
    }

    /// The key every element of the section has.
    public var key: Key {
        if isInvalidated { fatalError(Self.invalidatedMessage) }
        return sectionKey
    }

    /// The key, as SwiftUI's identity of the section.
    public var id: Key { key }

    /// The positions of the section's elements in the parent's sorted results, now.
    private var members: [Int] {
        guard let members = parent.layout.positions(of: sectionKey) else { fatalError(Self.invalidatedMessage) }
        return members
    }

    static var invalidatedMessage: String { "Access to invalidated Results objects" }

    /// The number of elements in the section.
    public var count: Int { members.count }
    public var isEmpty: Bool { count == 0 }
    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    /// The element at `index` of the section.
    public subscript(_ index: Int) -> T {
        let members = self.members
        precondition(index >= 0 && index < members.count,
                     SectionedResults<Key, T>.outOfBounds("ResultsSection[]", index, members.count))
        return parent.results[members[index]]
    }

    /// Iterates over the elements the section has when the loop begins, loading objects a page at a time.
    public func makeIterator() -> SectionIterator<T> {
        let members = self.members
        let results = parent.results
        let rowids = results.rowids
        var pages = Results<T>.Pages(results: results, rowids: members.map { rowids[$0] },
                                     values: results.valueType == nil ? nil : results.cache.values?.elements ?? [])
        return SectionIterator { pages.next() }
    }

    // MARK: Realm and thread

    /// The Realm of the sectioned results.
    public var realm: Realm? { parent.realm }
    /// Whether the Realm was invalidated or the key has no elements any more.
    public var isInvalidated: Bool { parent.isInvalidated || parent.layout.positions(of: sectionKey) == nil }
    /// Whether the section belongs to frozen sectioned results.
    public var isFrozen: Bool { parent.isFrozen }

    /// The section of the same key in the sectioned results frozen at the Realm's current version. Returns `self` if
    /// already frozen.
    public func freeze() -> ResultsSection {
        if isFrozen { return self }
        return ResultsSection(parent: parent.freeze(), key: sectionKey)
    }

    /// The section of the same key in live sectioned results in the current thread's Realm; nil when the key has no
    /// elements there. Returns `self` if live.
    public func thaw() -> ResultsSection? {
        guard isFrozen else { return self }
        guard let live = parent.thaw(), live.layout.positions(of: sectionKey) != nil else { return nil }
        return ResultsSection(parent: live, key: sectionKey)
    }

    /// The same key's section of the same sectioned results.
    public static func == (lhs: ResultsSection, rhs: ResultsSection) -> Bool {
        lhs.parent == rhs.parent && lhs.sectionKey == rhs.sectionKey
    }
}

/// Iterates over the elements of a `ResultsSection` (Realm's type).
public struct SectionIterator<Element: RealmCollectionValue>: IteratorProtocol {
    private let nextElement: () -> Element?

    init(_ next: @escaping () -> Element?) {
        nextElement = next
    }

    public mutating func next() -> Element? { nextElement() }
}

/// Realm's former name.
@available(*, deprecated, renamed: "SectionIterator")
public typealias RLMSectionIterator = SectionIterator
