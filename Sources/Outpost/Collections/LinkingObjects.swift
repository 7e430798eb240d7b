import Foundation
import OutpostCore

/// The objects of `Element` whose `originProperty` links to the owner:
/// `@Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>`.
public struct LinkingObjects<Element: ObjectBase & RealmCollectionValue>: CustomStringConvertible {
    let accessor: _PropertyAccessor?
    /// Which read of the property this is (Realm's equality: copies are equal, two reads are not).
    let identity = CollectionIdentity()
    /// The element every position holds while a key path is traced.
    var traceProbe: Element?

    var results: Results<Element>? { accessor.map { $0.collectionResults() } }

    public var count: Int { results?.count ?? 0 }
    public var isEmpty: Bool { count == 0 }
    public var first: Element? { results?.first }
    public var last: Element? { results?.last }
    /// The Realm of the owning object; nil when unmanaged.
    public var realm: Realm? { accessor.map { Realm(instance: $0.row.realm) } }
    public var description: String { _description(depth: CollectionDescription.maxDepth) }

    func _description(depth: Int) -> String {
        CollectionDescription.describe("LinkingObjects", typeName: Element.className(), address: nil, count: count,
                                       elements: self.lazy.map { $0 as Any }, depth: depth)
    }
    public subscript(index: Int) -> Element {
        if let traceProbe { return traceProbe }
        guard let results else { preconditionFailure("Index \(index) is out of bounds (must be less than 0).") }
        return results[index]
    }
    /// The position of a managed object among the linking objects; nil if it is not one of them.
    public func index(of object: Element) -> Int? { results?.index(of: object) }
    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    public func makeIterator() -> RLMIterator<Element> {
        guard let results else { return RLMIterator { nil } }
        return results.makeIterator()
    }
}

extension LinkingObjects: _Persistable {
    /// Realm's: linking objects are their own persisted type.
    public typealias PersistedType = Self
    public static var _typeInfo: _TypeInfo { _TypeInfo(.linkingObjects, objectType: Element.self) }
    public static var _collectionKind: CollectionKind { .none }
    public static func _defaultValue() -> LinkingObjects<Element> { LinkingObjects(accessor: nil) }
    public func _content() -> _PropertyContent { .computed }
    public static func _unmanagedValue(_ content: _PropertyContent) -> LinkingObjects<Element>? { _defaultValue() }
    public static func _get(_ accessor: _PropertyAccessor) -> LinkingObjects<Element> { LinkingObjects(accessor: accessor) }
    public static func _set(_ value: LinkingObjects<Element>, _ accessor: _PropertyAccessor) {
        fatalError("LinkingObjects properties are read-only")
    }
    /// Linking objects whose every element stands for any, so `\.owners[0].name` traces as `owners.name`.
    public static func _traceValue(_ tracer: _KeyPathTracer) -> LinkingObjects<Element> {
        var traced = LinkingObjects(accessor: nil)
        traced.traceProbe = tracer.probe(Element.self) as? Element
        return traced
    }
}
