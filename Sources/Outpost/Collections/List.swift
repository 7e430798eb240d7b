import Foundation
import OutpostCore

/// An ordered collection property: `@Persisted var dogs: List<Dog>`, `@Persisted var tags: List<String>`.
/// Unmanaged, it holds its elements; managed, it reads and writes its owner's row.
public final class List<Element: RealmCollectionValue>: RandomAccessCollection, MutableCollection, CustomStringConvertible {
    var unmanaged: [Element] = []
    /// The owner row and property, when managed.
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
        if accessor.nested != nil { return accessor.nestedElements }
        return accessor.row.readCollection(property: accessor.propertyIndex)
    }

    var currentElements: [Element] {
        guard accessor != nil else { return unmanaged }
        return storedElements.enumerated().map { element($1, at: $0) }
    }

    /// The element stored at `position`; a collection nested in a mixed element is live (it writes back here).
    func element(_ stored: _StoredValue, at position: Int) -> Element {
        if let accessor, stored.isNestedCollection, let live = AnyRealmValue.live(stored, accessor.nested(.index(position))) as? Element {
            return live
        }
        return Element._load(stored) ?? Element._defaultValue()
    }

    func replace(_ transform: (inout [_StoredValue]) -> Void) {
        guard let accessor else { return }
        accessor.row.realm.requireWriteForCollection()
        if accessor.nested != nil {
            var items = accessor.nestedElements
            transform(&items)
            accessor.writeNested(.list(items))
            return
        }
        var items = accessor.row.readCollection(property: accessor.propertyIndex)
        transform(&items)
        accessor.row.realm.setProperty(accessor.row, accessor.propertyIndex, .list(items))
    }

    // MARK: Collection

    /// The elements as they are when the loop begins (see ``RLMIterator``).
    public func makeIterator() -> RLMIterator<Element> {
        guard let accessor else {
            var base = unmanaged.makeIterator()
            return RLMIterator { base.next() }
        }
        let items = storedElements
        var index = 0
        return RLMIterator {
            guard index < items.count else { return nil }
            defer { index += 1 }
            accessor.eventRecordLinkRead(items[index])  // an element object is a read (event library)
            return self.element(items[index], at: index)
        }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { accessor == nil ? unmanaged.count : storedElements.count }

    public subscript(position: Int) -> Element {
        get {
            guard accessor != nil else { return unmanaged[position] }
            let items = storedElements
            precondition(position >= 0 && position < items.count,
                         "Index \(position) is out of bounds (must be less than \(items.count)).")
            accessor!.eventRecordLinkRead(items[position])  // an element object is a read (event library)
            return element(items[position], at: position)
        }
        set {
            guard accessor != nil else { unmanaged[position] = newValue; return }
            replace { items in
                precondition(position >= 0 && position < items.count,
                             "Index \(position) is out of bounds (must be less than \(items.count)).")
                items[position] = newValue._store()
            }
        }
    }

    /// Whether the list belongs to a managed object.
    public var isInvalidated: Bool { accessor?.row.isInvalidated ?? false }

    /// The Realm of the owning object.
    public var realm: Realm? { accessor.map { Realm(instance: $0.row.realm) } }

    // MARK: Mutation

    public func append(_ object: Element) {
        guard accessor != nil else { unmanaged.append(object); return }
        replace { $0.append(object._store()) }
    }

    public func append<S: Sequence>(objectsIn objects: S) where S.Element == Element {
        guard accessor != nil else { unmanaged.append(contentsOf: objects); return }
        let new = objects.map { $0._store() }
        replace { $0 += new }
    }

    public func insert(_ object: Element, at index: Int) {
        guard accessor != nil else { unmanaged.insert(object, at: index); return }
        replace { items in
            precondition(index >= 0 && index <= items.count, "Index \(index) is out of bounds (must be less than \(items.count + 1)).")
            items.insert(object._store(), at: index)
        }
    }

    public func remove(at index: Int) {
        guard accessor != nil else { unmanaged.remove(at: index); return }
        replace { items in
            precondition(index >= 0 && index < items.count, "Index \(index) is out of bounds (must be less than \(items.count)).")
            items.remove(at: index)
        }
    }

    public func removeAll() {
        guard accessor != nil else { unmanaged.removeAll(); return }
        replace { $0.removeAll() }
    }


    public func replace(index: Int, object: Element) {
        self[index] = object
    }

    public func move(from: Int, to: Int) {
        guard accessor != nil else { unmanaged.insert(unmanaged.remove(at: from), at: to); return }
        replace { items in items.insert(items.remove(at: from), at: to) }
    }

    public func swapAt(_ index1: Int, _ index2: Int) {
        guard accessor != nil else { unmanaged.swapAt(index1, index2); return }
        replace { $0.swapAt(index1, index2) }
    }

    /// The position of `object`: a managed object by its row (two reads of one object are the same), a value by
    /// equality.
    public func index(of object: Element) -> Int? {
        guard let target = object as? ObjectBase, target._row != nil else { return currentElements.firstIndex(of: object) }
        return currentElements.firstIndex { ($0 as? ObjectBase)?.isSameObject(as: target) == true }
    }

    public var description: String { _description(depth: CollectionDescription.maxDepth) }

    func _description(depth: Int) -> String {
        CollectionDescription.describe("List", typeName: CollectionDescription.typeName(Element.self), address: self,
                                       count: count, elements: self.lazy.map { $0 as Any }, depth: depth)
    }
}

extension List: _Persistable {
    /// Realm's: a collection property is stored as itself.
    public typealias PersistedType = List
    public static var _typeInfo: _TypeInfo { Element._typeInfo }
    public static var _collectionKind: CollectionKind { .list }
    public static func _defaultValue() -> List<Element> { List() }
    public func _content() -> _PropertyContent { .list(storedElements) }
    public static func _unmanagedValue(_ content: _PropertyContent) -> List<Element>? {
        guard case .list(let items) = content else { return nil }
        let list = List()
        for item in items {
            guard let element = Element._load(item) else { return nil }
            list.unmanaged.append(element)
        }
        return list
    }
    public static func _get(_ accessor: _PropertyAccessor) -> List<Element> { List(accessor: accessor) }
    public static func _attach(_ value: List<Element>, to accessor: _PropertyAccessor) {
        guard value.accessor == nil else { return }
        value.accessor = accessor
        value.unmanaged = []
    }
    public static func _isAttached(_ value: List<Element>, to accessor: _PropertyAccessor) -> Bool {
        value.accessor?.isProperty(accessor) == true
    }
    public static func _set(_ value: List<Element>, _ accessor: _PropertyAccessor) {
        accessor.row.realm.setProperty(accessor.row, accessor.propertyIndex, .list(value.storedElements))
    }
    /// A list whose element stands for any element, so `\.dogs[0].name` traces as `dogs.name`.
    public static func _traceValue(_ tracer: _KeyPathTracer) -> List<Element> {
        let list = List()
        if let probe = tracer.probeElement(Element.self) { list.unmanaged = [probe] }
        return list
    }
}

extension List: _OutpostCollectionContents {
    func _elementsAsAny() -> [Any] { currentElements.map { $0 as Any } }
}

extension RealmInstance {
    @inline(__always)
    func requireWriteForCollection() {
        if !isInWriteTransaction {
            fatalError("Cannot modify managed RLMArray outside of a write transaction.")
        }
    }
}
