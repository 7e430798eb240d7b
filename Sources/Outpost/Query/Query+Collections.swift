import Foundation
import OutpostCore

extension Query where T: RealmCollection {
    /// A property of the collection's objects: `$0.dogs.name`. Comparisons on it match when any
    /// element matches (`ANY dogs.name == "Rex"`).
    public subscript<V>(dynamicMember member: KeyPath<T.Element, V>) -> Query<V> where T.Element: ObjectBase {
        Query<V>(node.appending(Query<T.Element>.components(of: member)))
    }

    /// The number of elements: `dogs.@count`.
    public var count: Query<Int> {
        Query<Int>(node.erasingAny(appending: .aggregate(.count)))
    }

    /// True if the collection holds `value`: `value IN tags`.
    public func contains(_ value: T.Element) -> Query<Bool> {
        Query<Bool>(.comparison(.in, .constant(QueryConstant(value)), node.erasingAny(), options: []))
    }

    /// True if the collection holds any of `collection`'s elements: `ANY tags IN {"a", "b"}`.
    public func containsAny<U: Sequence>(in collection: U) -> Query<Bool> where U.Element == T.Element {
        Query<Bool>(.comparison(.in, node, .constant(.sequence(collection)), options: []))
    }

    /// True if any element equals `rhs`: `ANY scores == 3`.
    public static func == (_ lhs: Query<T>, _ rhs: T.Element) -> Query<Bool> {
        Query<Bool>(.comparison(.equal, lhs.node, .constant(QueryConstant(rhs)), options: []))
    }

    /// True if any element differs from `rhs`: `ANY scores != 3`.
    public static func != (_ lhs: Query<T>, _ rhs: T.Element) -> Query<Bool> {
        Query<Bool>(.comparison(.notEqual, lhs.node, .constant(QueryConstant(rhs)), options: []))
    }
}

extension Query where T: RealmCollection, T.Element: Comparable {
    /// True if every element lies in the range: `scores.@min >= lo AND scores.@max < hi`.
    public func contains(_ range: Range<T.Element>) -> Query<Bool> {
        Query<Bool>(node.elementsWithin(range.lowerBound, range.upperBound, closed: false))
    }

    /// True if every element lies in the range: `scores.@min >= lo AND scores.@max <= hi`.
    public func contains(_ range: ClosedRange<T.Element>) -> Query<Bool> {
        Query<Bool>(node.elementsWithin(range.lowerBound, range.upperBound, closed: true))
    }
}

extension Query where T: RealmCollection, T.Element.PersistedType: _QueryNumeric {
    /// True if any element is greater: `ANY scores > 3`.
    public static func > (_ lhs: Query<T>, _ rhs: T.Element) -> Query<Bool> {
        Query<Bool>(.comparison(.greaterThan, lhs.node, .constant(QueryConstant(rhs)), options: []))
    }

    /// True if any element is greater or equal.
    public static func >= (_ lhs: Query<T>, _ rhs: T.Element) -> Query<Bool> {
        Query<Bool>(.comparison(.greaterThanOrEqual, lhs.node, .constant(QueryConstant(rhs)), options: []))
    }

    /// True if any element is smaller.
    public static func < (_ lhs: Query<T>, _ rhs: T.Element) -> Query<Bool> {
        Query<Bool>(.comparison(.lessThan, lhs.node, .constant(QueryConstant(rhs)), options: []))
    }

    /// True if any element is smaller or equal.
    public static func <= (_ lhs: Query<T>, _ rhs: T.Element) -> Query<Bool> {
        Query<Bool>(.comparison(.lessThanOrEqual, lhs.node, .constant(QueryConstant(rhs)), options: []))
    }

    /// The smallest element: `scores.@min`.
    public var min: Query<T.Element> { Query<T.Element>(node.erasingAny(appending: .aggregate(.min))) }

    /// The largest element: `scores.@max`.
    public var max: Query<T.Element> { Query<T.Element>(node.erasingAny(appending: .aggregate(.max))) }

    /// The average of the elements: `scores.@avg`.
    public var avg: Query<T.Element> { Query<T.Element>(node.erasingAny(appending: .aggregate(.avg))) }

    /// The sum of the elements: `scores.@sum`.
    public var sum: Query<T.Element> { Query<T.Element>(node.erasingAny(appending: .aggregate(.sum))) }
}

extension Query where T: RealmCollection, T.Element: OptionalProtocol, T.Element.Wrapped: Comparable {
    /// True if every element lies in the range (a collection of optionals; null elements never match).
    public func contains(_ range: Range<T.Element.Wrapped>) -> Query<Bool> {
        Query<Bool>(node.elementsWithin(range.lowerBound, range.upperBound, closed: false))
    }

    /// True if every element lies in the closed range (a collection of optionals).
    public func contains(_ range: ClosedRange<T.Element.Wrapped>) -> Query<Bool> {
        Query<Bool>(node.elementsWithin(range.lowerBound, range.upperBound, closed: true))
    }
}

// MARK: Stored forms of elements (Realm's: the collection type only selects the operators)

extension Query where T: RealmCollection, T.Element: PersistableEnum, T.Element.RawValue: RealmCollectionValue {
    /// The elements' raw values, for operators the enum lacks: `$0.moods.rawValue.contains("happy")`.
    public var rawValue: Query<AnyRealmCollection<T.Element.RawValue>> { Query<AnyRealmCollection<T.Element.RawValue>>(node) }
}

extension Query where T: RealmCollection, T.Element: OptionalProtocol, T.Element.Wrapped: PersistableEnum,
    T.Element.Wrapped.RawValue: _RealmCollectionValueInsideOptional
{
    /// The optional elements' raw values.
    public var rawValue: Query<AnyRealmCollection<T.Element.Wrapped.RawValue?>> {
        Query<AnyRealmCollection<T.Element.Wrapped.RawValue?>>(node)
    }
}

extension Query where T: RealmCollection {
    /// The elements' stored forms (the persisted values of custom-persistable elements).
    public var persistableValue: Query<AnyRealmCollection<T.Element.PersistedType>> {
        Query<AnyRealmCollection<T.Element.PersistedType>>(node)
    }
}
