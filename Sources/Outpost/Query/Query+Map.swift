import Foundation
import OutpostCore

extension Query where T: RealmKeyedCollection {
    /// The value for a key: `$0.prices["eur"] > 1` is `prices["eur"] > 1`.
    public subscript(member: T.Key) -> Query<T.Value> {
        let key = (member as? any _MapKey)?._outpostKey ?? "\(member)"
        return Query<T.Value>(node.erasingAny(appending: .mapKey(key)))
    }

    /// All values of the map; comparisons match when any value matches (`ANY prices.@values > 1`).
    public var values: Query<T.Value> {
        Query<T.Value>(node.appending([.values]))
    }

    /// The number of entries: `prices.@count`.
    public var count: Query<Int> {
        Query<Int>(node.erasingAny(appending: .aggregate(.count)))
    }

    /// True if the map holds `value` among its values: `value IN prices`.
    public func contains(_ value: T.Value) -> Query<Bool> {
        Query<Bool>(.comparison(.in, .constant(QueryConstant(value)), node.erasingAny(), options: []))
    }

    /// True if any value of the map is one of `collection`'s elements: `ANY prices IN {1, 2}`.
    public func containsAny<U: Sequence>(in collection: U) -> Query<Bool> where U.Element == T.Value {
        Query<Bool>(.comparison(.in, node, .constant(.sequence(collection)), options: []))
    }
}

extension Query where T: RealmKeyedCollection, T.Key == String {
    /// All keys of the map; comparisons match when any key matches (`ANY prices.@keys == "eur"`).
    public var keys: Query<String> {
        Query<String>(node.appending([.keys]))
    }
}

extension Query where T: RealmKeyedCollection, T.Value: Comparable {
    /// True if every value lies in the range: `prices.@min >= lo AND prices.@max < hi`.
    public func contains(_ range: Range<T.Value>) -> Query<Bool> {
        Query<Bool>(node.elementsWithin(range.lowerBound, range.upperBound, closed: false))
    }

    /// True if every value lies in the range: `prices.@min >= lo AND prices.@max <= hi`.
    public func contains(_ range: ClosedRange<T.Value>) -> Query<Bool> {
        Query<Bool>(node.elementsWithin(range.lowerBound, range.upperBound, closed: true))
    }
}

extension Query where T: RealmKeyedCollection, T.Value.PersistedType: _QueryNumeric {
    /// The smallest value: `prices.@min`.
    public var min: Query<T.Value> { Query<T.Value>(node.erasingAny(appending: .aggregate(.min))) }

    /// The largest value: `prices.@max`.
    public var max: Query<T.Value> { Query<T.Value>(node.erasingAny(appending: .aggregate(.max))) }

    /// The average of the values: `prices.@avg`.
    public var avg: Query<T.Value> { Query<T.Value>(node.erasingAny(appending: .aggregate(.avg))) }

    /// The sum of the values: `prices.@sum`.
    public var sum: Query<T.Value> { Query<T.Value>(node.erasingAny(appending: .aggregate(.sum))) }
}

extension Query where T: RealmKeyedCollection, T.Value: OptionalProtocol, T.Value.Wrapped: Comparable {
    /// True if every value lies in the range (a map of optionals; null values never match).
    public func contains(_ range: Range<T.Value.Wrapped>) -> Query<Bool> {
        Query<Bool>(node.elementsWithin(range.lowerBound, range.upperBound, closed: false))
    }

    /// True if every value lies in the closed range (a map of optionals).
    public func contains(_ range: ClosedRange<T.Value.Wrapped>) -> Query<Bool> {
        Query<Bool>(node.elementsWithin(range.lowerBound, range.upperBound, closed: true))
    }
}

// MARK: Stored forms of values (Realm's: the map type only selects the operators)

extension Query where T: RealmKeyedCollection, T.Value: PersistableEnum, T.Value.RawValue: RealmCollectionValue {
    /// The values' raw values: `$0.moods.rawValue["mon"] == "happy"`.
    public var rawValue: Query<Map<T.Key, T.Value.RawValue>> { Query<Map<T.Key, T.Value.RawValue>>(node) }
}

extension Query where T: RealmKeyedCollection, T.Value: OptionalProtocol, T.Value.Wrapped: PersistableEnum,
    T.Value.Wrapped.RawValue: _RealmCollectionValueInsideOptional
{
    /// The optional values' raw values.
    public var rawValue: Query<Map<T.Key, T.Value.Wrapped.RawValue?>> { Query<Map<T.Key, T.Value.Wrapped.RawValue?>>(node) }
}

extension Query where T: RealmKeyedCollection {
    /// The values' stored forms (the persisted values of custom-persistable values).
    public var persistableValue: Query<Map<T.Key, T.Value.PersistedType>> { Query<Map<T.Key, T.Value.PersistedType>>(node) }
}
