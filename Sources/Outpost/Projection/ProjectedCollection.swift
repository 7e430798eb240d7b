import Foundation
import OutpostCore

/// A list or set of objects seen as the values of one property of its elements: the type of a `@Projected` property
/// declared with `projectTo`. Reads and writes go through the elements; it follows the collection as it changes.
///
/// ```swift
/// class PersonProjection: Projection<Person> {
///     @Projected(\Person.friends.projectTo.firstName) var friendsFirstNames: ProjectedCollection<String>
/// }
/// ```
///
/// Projected from a `MutableSet`, it is not a set: two elements with the same value both appear.
public struct ProjectedCollection<Element>: RandomAccessCollection, CustomStringConvertible, ThreadConfined
where Element: RealmCollectionValue {
    public typealias Index = Int

    /// The objects and the key path their values are read through.
    let elements: any ProjectedElements<Element>

    init(_ elements: any ProjectedElements<Element>) {
        self.elements = elements
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { elements.count }

    /// The value of the element at `position`, or sets it (in a write transaction, as setting the element's property).
    public subscript(position: Int) -> Element {
        get { elements.value(at: position) }
        nonmutating set { elements.setValue(newValue, at: position) }
    }

    /// The position of the first element whose value is `object`, or nil.
    public func index(of object: Element) -> Int? {
        firstIndex(of: object)
    }

    /// The Realm of the collection's owner; nil when it is unmanaged.
    public var realm: Realm? { elements.realm }

    /// Realm's: `ProjectedCollection<String> {\n\t[0] John\n}`.
    public var description: String {
        var text = "ProjectedCollection<\(Element.self)> {\n"
        for (index, value) in enumerated() {
            text += "\t[\(index)] \(value)\n"
        }
        return text + "}"
    }

    // MARK: Notifications

    /// Calls `block` with the initial values and after every change of the collection, on this thread (`queue` nil)
    /// or on `queue`.
    public func observe(on queue: DispatchQueue?,
                        _ block: @escaping (RealmCollectionChange<ProjectedCollection<Element>>) -> Void)
        -> NotificationToken
    {
        elements.observe(keyPaths: nil, on: queue, block)
    }

    /// Calls `block` with the initial values and after every change of the collection: elements added, removed or
    /// replaced, and elements whose properties at `keyPaths` changed (names of the elements' properties; nil watches
    /// every property, as `List.observe` does).
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<ProjectedCollection<Element>>) -> Void)
        -> NotificationToken
    {
        elements.observe(keyPaths: keyPaths, on: queue, block)
    }

    // MARK: ThreadConfined

    /// Whether the collection's owner was deleted or its Realm invalidated.
    public var isInvalidated: Bool { elements.isInvalidated }

    /// Whether the collection belongs to a frozen Realm.
    public var isFrozen: Bool { elements.isFrozen }

    /// The same projection of a frozen copy of the collection.
    public func freeze() -> ProjectedCollection { elements.frozen() }

    /// The same projection of the live collection in this thread's Realm, or nil if its owner no longer exists.
    public func thaw() -> ProjectedCollection? { elements.thawed() }

    /// Not supported: a reference cannot carry the key path the values are read through. Make a reference to the
    /// projection (or the object) instead.
    public var _threadSafeHandle: _ThreadSafeHandle? {
        fatalError("Cannot construct a ThreadSafeReference to a ProjectedCollection: pass its Projection instead")
    }

    public static func _resolve(_ handle: _ThreadSafeHandle, in realm: Realm) -> ProjectedCollection? { nil }
}

/// A projected collection seen while a `@Projected` key path is traced: the key path of its elements' values.
protocol ProjectedCollectionTracing {
    /// The dotted name of the elements' key path (`firstName`); empty when it reads no persisted property.
    var elementPropertyName: String { get }
}

extension ProjectedCollection: ProjectedCollectionTracing {
    var elementPropertyName: String { elements.elementPropertyName }
}
