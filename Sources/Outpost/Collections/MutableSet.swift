import Foundation
import OutpostCore

/// An unordered collection of distinct values: `@Persisted var tags: MutableSet<String>`.
public final class MutableSet<Element: RealmCollectionValue>: CustomStringConvertible {
    var unmanaged: [Element] = []
    /// Set when the object holding an unmanaged collection is added (``_attach(_:to:)``).
    private(set) var accessor: _PropertyAccessor?

    public init() {
        accessor = nil
    }

    init(accessor: _PropertyAccessor) {
        self.accessor = accessor
    }

    var storedElements: [_StoredValue] {
        guard let accessor else { return unmanaged.map { $0._store() } }
        return accessor.row.readCollection(property: accessor.propertyIndex)
    }

    var currentElements: [Element] {
        guard accessor != nil else { return unmanaged }
        return storedElements.compactMap { Element._load($0) }
    }

    /// The stored elements' number (not decoded: a dynamic set of values answers it too, as in Realm).
    public var count: Int { accessor == nil ? unmanaged.count : storedElements.count }
    public var isEmpty: Bool { count == 0 }
    /// The Realm of the owning object; nil when unmanaged.
    public var realm: Realm? { accessor.map { Realm(instance: $0.row.realm) } }
    /// The element at `position` in the set's order (its storage order; insertion order when unmanaged).
    public subscript(position: Int) -> Element {
        let currentElements = self.currentElements
        precondition(position >= 0, "Cannot pass a negative value for 'index'.")
        precondition(position < currentElements.count,
                     "Index \(position) is out of bounds (must be less than \(currentElements.count)).")
        return currentElements[position]
    }
    /// The element that comes first in the set's order (its storage order; insertion order when unmanaged).
    public var first: Element? { currentElements.first }
    /// The element that comes last in the set's order.
    public var last: Element? { currentElements.last }
    public func makeIterator() -> RLMIterator<Element> {
        // Iterating reads every element object (event library), as Realm's batched enumeration does.
        accessor?.eventRecordLinkReads(storedElements)
        var base = currentElements.makeIterator()
        return RLMIterator { base.next() }
    }
    /// Realm's: a set has no positions to ask for (traps with Realm's text).
    public func index(of object: Element) -> Int? {
        fatalError("index(of:) is not available on MutableSet")
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    public func contains(_ object: Element) -> Bool { currentElements.contains(object) }

    private func update(_ body: (inout [Element]) -> Void) {
        var items = currentElements
        body(&items)
        if let accessor {
            accessor.row.realm.requireWriteForCollection()
            accessor.row.realm.setProperty(accessor.row, accessor.propertyIndex, .set(items.map { $0._store() }))
        } else {
            unmanaged = items
        }
    }

    public func insert(_ object: Element) {
        update { if !$0.contains(object) { $0.append(object) } }
    }

    public func insert<S: Sequence>(objectsIn objects: S) where S.Element == Element {
        update { items in for o in objects where !items.contains(o) { items.append(o) } }
    }

    public func remove(_ object: Element) {
        update { $0.removeAll { $0 == object } }
    }

    public func removeAll() {
        update { $0.removeAll() }
    }

    public func formIntersection(_ other: MutableSet<Element>) {
        let keep = Set(other.currentElements)
        update { $0.removeAll { !keep.contains($0) } }
    }

    public func formUnion(_ other: MutableSet<Element>) {
        insert(objectsIn: other.currentElements)
    }

    public func subtract(_ other: MutableSet<Element>) {
        let drop = Set(other.currentElements)
        update { $0.removeAll { drop.contains($0) } }
    }

    public func isSubset(of other: MutableSet<Element>) -> Bool { Set(currentElements).isSubset(of: Set(other.currentElements)) }
    public func intersects(_ other: MutableSet<Element>) -> Bool { !Set(currentElements).isDisjoint(with: Set(other.currentElements)) }

    public var description: String { _description(depth: CollectionDescription.maxDepth) }

    func _description(depth: Int) -> String {
        CollectionDescription.describe("MutableSet", typeName: CollectionDescription.typeName(Element.self),
                                       address: self, count: count, elements: self.lazy.map { $0 as Any }, depth: depth)
    }
}

extension MutableSet: _Persistable {
    /// Realm's: a collection property is stored as itself.
    public typealias PersistedType = MutableSet
    public static var _typeInfo: _TypeInfo { Element._typeInfo }
    public static var _collectionKind: CollectionKind { .set }
    public static func _defaultValue() -> MutableSet<Element> { MutableSet() }
    public func _content() -> _PropertyContent { .set(storedElements) }
    public static func _unmanagedValue(_ content: _PropertyContent) -> MutableSet<Element>? {
        guard case .set(let items) = content else { return nil }
        let set = MutableSet()
        var seen: Set<Element> = []
        for item in items {
            guard let element = Element._load(item) else { return nil }
            if seen.insert(element).inserted { set.unmanaged.append(element) }
        }
        return set
    }
    public static func _get(_ accessor: _PropertyAccessor) -> MutableSet<Element> { MutableSet(accessor: accessor) }
    public static func _attach(_ value: MutableSet<Element>, to accessor: _PropertyAccessor) {
        guard value.accessor == nil else { return }
        value.accessor = accessor
        value.unmanaged = []
    }
    public static func _isAttached(_ value: MutableSet<Element>, to accessor: _PropertyAccessor) -> Bool {
        value.accessor?.isProperty(accessor) == true
    }
    public static func _set(_ value: MutableSet<Element>, _ accessor: _PropertyAccessor) {
        accessor.row.realm.setProperty(accessor.row, accessor.propertyIndex, .set(value.storedElements))
    }
    /// A set whose element stands for any element, so `\.tags[0].name` traces as `tags.name`.
    public static func _traceValue(_ tracer: _KeyPathTracer) -> MutableSet<Element> {
        let set = MutableSet()
        if let probe = tracer.probeElement(Element.self) { set.unmanaged = [probe] }
        return set
    }
}

extension MutableSet: _OutpostCollectionContents {
    func _elementsAsAny() -> [Any] { currentElements.map { $0 as Any } }
}
