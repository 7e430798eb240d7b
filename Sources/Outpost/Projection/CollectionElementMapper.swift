import Foundation
import OutpostCore

/// Turns a list or set of objects into a ``ProjectedCollection`` of one property of its elements, in `@Projected`
/// key paths: `\Person.friends.projectTo.firstName` is a `ProjectedCollection<String>` of the friends' first names.
@dynamicMemberLookup
public struct CollectionElementMapper<Element> where Element: ObjectBase & RealmCollectionValue {
    /// The collection whose elements are mapped.
    enum Source {
        case list(List<Element>)
        case set(MutableSet<Element>)
    }

    let source: Source

    /// The values at `member` of the collection's elements.
    public subscript<V: RealmCollectionValue>(dynamicMember member: KeyPath<Element, V>) -> ProjectedCollection<V> {
        switch source {
        case .list(let elements): ProjectedCollection(MappedObjects(base: elements, keyPath: member))
        case .set(let elements): ProjectedCollection(MappedObjects(base: elements, keyPath: member))
        }
    }
}

extension List where Element: ObjectBase {
    /// The list's objects mapped to one of their properties, for a `@Projected` property:
    /// `@Projected(\Person.dogs.projectTo.name) var dogNames: ProjectedCollection<String>`.
    public var projectTo: CollectionElementMapper<Element> {
        CollectionElementMapper(source: .list(self))
    }
}

extension MutableSet where Element: ObjectBase {
    /// The set's objects mapped to one of their properties, for a `@Projected` property:
    /// `@Projected(\Person.dogs.projectTo.name) var dogNames: ProjectedCollection<String>`. The values are not a
    /// set: equal values of two objects both appear.
    public var projectTo: CollectionElementMapper<Element> {
        CollectionElementMapper(source: .set(self))
    }
}
