import Foundation
import OutpostCore

/// Any Realm collection — `Results`, `List`, `MutableSet`, `LinkingObjects` — of `Element`, behind one type: for a
/// property or a view that shows "some objects" whichever collection they come from.
///
/// ```swift
/// let dogs = AnyRealmCollection(owner.dogs)
/// let old = dogs.filter("age > 10")
/// ```
public struct AnyRealmCollection<Element: RealmCollectionValue>: RealmCollection {
    let base: any RealmCollection<Element>

    /// Wraps `base` (an `AnyRealmCollection` is not wrapped twice).
    public init<C: RealmCollection>(_ base: C) where C.Element == Element {
        self.base = (base as? AnyRealmCollection<Element>)?.base ?? base
    }

    private init(erased base: any RealmCollection<Element>) {
        self.base = base
    }

    public var realm: Realm? { base.realm }
    public var count: Int { base.count }
    public var isEmpty: Bool { base.isEmpty }
    public var first: Element? { base.first }
    public var last: Element? { base.last }
    public var _results: Results<Element> { base._results }
    public var description: String {
        CollectionDescription.describe("AnyRealmCollection", typeName: CollectionDescription.typeName(Element.self),
                                       address: nil, count: count, elements: (0..<count).lazy.map { self[$0] as Any },
                                       depth: CollectionDescription.maxDepth)
    }

    /// The element at `position` of the wrapped collection's order.
    public subscript(position: Int) -> Element {
        switch base {
        case let results as Results<Element>: return results[position]
        case let list as List<Element>: return list[position]
        default:
            var iterator = base.makeIterator()
            var elements: [Element] = []
            while let element = iterator.next() { elements.append(element) }
            precondition(position >= 0 && position < elements.count,
                         "Index \(position) is out of bounds (must be less than \(elements.count)).")
            return elements[position]
        }
    }

    public func index(of object: Element) -> Int? { base.index(of: object) }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    public func makeIterator() -> RLMIterator<Element> { base.makeIterator() }

    // MARK: ThreadConfined

    public var isInvalidated: Bool { base.isInvalidated }
    public var isFrozen: Bool { base.isFrozen }
    public func freeze() -> AnyRealmCollection { AnyRealmCollection(erased: base.freeze()) }
    public func thaw() -> AnyRealmCollection? { base.thaw().map { AnyRealmCollection(erased: $0) } }
    public var _threadSafeHandle: _ThreadSafeHandle? { base._threadSafeHandle }

    /// A reference resolves to results over the same elements in the same order (the wrapped collection's own type
    /// is not part of the reference).
    public static func _resolve(_ handle: _ThreadSafeHandle, in realm: Realm) -> AnyRealmCollection? {
        switch handle.target {
        case .results: Results<Element>._resolve(handle, in: realm).map { AnyRealmCollection($0) }
        case .property: handle.accessor(in: realm).map { AnyRealmCollection($0.collectionResults() as Results<Element>) }
        case .object: nil
        }
    }
}
