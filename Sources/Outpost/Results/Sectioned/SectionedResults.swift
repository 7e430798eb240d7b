import Foundation
import OutpostCore

/// Sorted results cut into sections by a key each element gives (Realm's type), made by `sectioned(...)` on any Realm
/// collection:
///
/// ```swift
/// let byLetter = realm.objects(Word.self).sectioned(by: \.firstLetter, ascending: true)
/// for section in byLetter { print(section.key, section.count) }
/// let first = byLetter[IndexPath(item: 0, section: 0)]
/// ```
///
/// Live and lazy, as `Results` are: the sections are worked out again, by running the key block over every element,
/// the first time they are read after the Realm changed. A key's section comes where the key first appears in the
/// sort (see `SectionLayout`); the sort's first descriptor should decide the key.
public struct SectionedResults<Key: _Persistable & Hashable, SectionElement: RealmCollectionValue>:
    RealmSectionedResult
{
    public typealias Element = ResultsSection<Key, SectionElement>

    /// The sorted results the sections are cut from.
    let results: Results<SectionElement>
    /// Gives an element's section key.
    let keyBlock: (SectionElement) -> Key
    /// The sections at the latest version read; shared by copies (and is their identity, for `==`).
    let cache = SectionLayoutCache<Key>()

    init(results: Results<SectionElement>, keyBlock: @escaping (SectionElement) -> Key) {
        if Key._rlmType == .object { fatalError("Links are not supported as section keys.") }
        self.results = results
        self.keyBlock = keyBlock
    }

    /// The sections now.
    var layout: SectionLayout<Key> {
        let keyBlock = self.keyBlock
        return cache.layout(of: results) { element in
            let key = keyBlock(element)
            // A key object deleted later would leave its section without a key (Realm refuses them too).
            if let mixed = key as? AnyRealmValue, case .object = mixed {
                fatalError("Links are not supported as section keys.")
            }
            return key
        }
    }

    /// The keys of the sections, in order.
    public var allKeys: [Key] { layout.keys }

    /// The number of sections.
    public var count: Int { layout.keys.count }
    public var isEmpty: Bool { count == 0 }
    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    /// The section at `index`.
    public subscript(_ index: Int) -> ResultsSection<Key, SectionElement> {
        let keys = layout.keys
        precondition(index >= 0 && index < keys.count, Self.outOfBounds("SectionedResults[]", index, keys.count))
        return ResultsSection(parent: self, key: keys[index])
    }

    /// The element at `indexPath`: its item in its section.
    public subscript(_ indexPath: IndexPath) -> SectionElement {
        precondition(indexPath.count == 2, "An index path into sectioned results has a section and an item.")
        return self[indexPath[0]][indexPath[1]]
    }

    /// Iterates over the sections there are when the loop begins.
    public func makeIterator() -> SectionedResultsIterator<Key, SectionElement> {
        SectionedResultsIterator(parent: self, keys: layout.keys)
    }

    /// Realm's text for an index past the end.
    static func outOfBounds(_ accessor: String, _ index: Int, _ count: Int) -> String {
        count == 0 ? "Requested index \(index) calling \(accessor) when empty"
            : "Requested index \(index) calling \(accessor) when max is \(count - 1)"
    }

    // MARK: Realm and thread

    /// The Realm of the sorted results.
    public var realm: Realm? { results.realm }
    /// Whether the Realm of the sorted results was invalidated (or the owner of the list or set they sort deleted).
    public var isInvalidated: Bool { results.isInvalidated }
    /// Whether the sorted results belong to a frozen Realm.
    public var isFrozen: Bool { results.isFrozen }

    /// The same sections over the results frozen at the Realm's current version: they never change and may be read
    /// from any thread (the key block runs where they are first read). Returns `self` if already frozen.
    public func freeze() -> SectionedResults {
        if isFrozen { return self }
        return SectionedResults(results: results.freeze(), keyBlock: keyBlock)
    }

    /// Live sections over the same sorted results in the current thread's Realm. Returns `self` if live.
    public func thaw() -> SectionedResults? {
        guard isFrozen else { return self }
        return results.thaw().map { SectionedResults(results: $0, keyBlock: keyBlock) }
    }

    /// The same sectioned results (a copy of this value), as Realm compares them: two calls to `sectioned(...)` give
    /// unequal values even over the same elements.
    public static func == (lhs: SectionedResults, rhs: SectionedResults) -> Bool { lhs.cache === rhs.cache }
}

/// Iterates over the sections of `SectionedResults` (Realm's type).
public struct SectionedResultsIterator<Key: _Persistable & Hashable, SectionElement: RealmCollectionValue>:
    IteratorProtocol
{
    private let parent: SectionedResults<Key, SectionElement>
    private let keys: [Key]
    private var position = 0

    init(parent: SectionedResults<Key, SectionElement>, keys: [Key]) {
        self.parent = parent
        self.keys = keys
    }

    public mutating func next() -> ResultsSection<Key, SectionElement>? {
        guard position < keys.count else { return nil }
        position += 1
        return ResultsSection(parent: parent, key: keys[position - 1])
    }
}

/// Realm's former name.
@available(*, deprecated, renamed: "SectionedResultsIterator")
public typealias RLMSectionedResultsIterator = SectionedResultsIterator
