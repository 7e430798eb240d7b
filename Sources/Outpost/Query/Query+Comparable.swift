import Foundation
import OutpostCore

// MARK: Ordering

extension Query where T: _HasPersistedType, T.PersistedType: _QueryNumeric {
    /// `lhs > rhs` (numbers, dates, and enums with numeric raw values).
    public static func > (_ lhs: Query, _ rhs: T) -> Query<Bool> {
        Query<Bool>(.comparison(.greaterThan, lhs.node, .constant(QueryConstant(rhs)), options: []))
    }

    /// `lhs > rhs` between two properties.
    public static func > (_ lhs: Query, _ rhs: Query) -> Query<Bool> {
        Query<Bool>(.comparison(.greaterThan, lhs.node, rhs.node, options: []))
    }

    /// `lhs >= rhs`.
    public static func >= (_ lhs: Query, _ rhs: T) -> Query<Bool> {
        Query<Bool>(.comparison(.greaterThanOrEqual, lhs.node, .constant(QueryConstant(rhs)), options: []))
    }

    /// `lhs >= rhs` between two properties.
    public static func >= (_ lhs: Query, _ rhs: Query) -> Query<Bool> {
        Query<Bool>(.comparison(.greaterThanOrEqual, lhs.node, rhs.node, options: []))
    }

    /// `lhs < rhs`.
    public static func < (_ lhs: Query, _ rhs: T) -> Query<Bool> {
        Query<Bool>(.comparison(.lessThan, lhs.node, .constant(QueryConstant(rhs)), options: []))
    }

    /// `lhs < rhs` between two properties.
    public static func < (_ lhs: Query, _ rhs: Query) -> Query<Bool> {
        Query<Bool>(.comparison(.lessThan, lhs.node, rhs.node, options: []))
    }

    /// `lhs <= rhs`.
    public static func <= (_ lhs: Query, _ rhs: T) -> Query<Bool> {
        Query<Bool>(.comparison(.lessThanOrEqual, lhs.node, .constant(QueryConstant(rhs)), options: []))
    }

    /// `lhs <= rhs` between two properties.
    public static func <= (_ lhs: Query, _ rhs: Query) -> Query<Bool> {
        Query<Bool>(.comparison(.lessThanOrEqual, lhs.node, rhs.node, options: []))
    }
}

// MARK: Aggregates over a collection's objects

extension Query where T: _HasPersistedType, T.PersistedType: _QueryNumeric {
    /// The smallest value of the property over a collection's objects: `$0.dogs.age.min` is
    /// `dogs.@min.age`. The key path must pass through a collection.
    public var min: Query { Query(node.insertingAggregate(.min)) }

    /// The largest value: `dogs.@max.age`.
    public var max: Query { Query(node.insertingAggregate(.max)) }

    /// The average: `dogs.@avg.age`.
    public var avg: Query { Query(node.insertingAggregate(.avg)) }

    /// The sum: `dogs.@sum.age`.
    public var sum: Query { Query(node.insertingAggregate(.sum)) }
}

// MARK: Ranges

extension Query where T: Comparable {
    /// `lowerBound <= value < upperBound`: `age >= 18 AND age < 30`.
    public func contains(_ range: Range<T>) -> Query<Bool> {
        Query<Bool>(.and(
            .comparison(.greaterThanOrEqual, node, .constant(QueryConstant(range.lowerBound)), options: []),
            .comparison(.lessThan, node, .constant(QueryConstant(range.upperBound)), options: [])))
    }

    /// `lowerBound <= value <= upperBound`: `age BETWEEN {18, 30}`.
    public func contains(_ range: ClosedRange<T>) -> Query<Bool> {
        Query<Bool>(.comparison(.between, node, .constant(.sequence([range.lowerBound, range.upperBound])), options: []))
    }
}

extension Query where T: OptionalProtocol, T.Wrapped: Comparable {
    /// `lowerBound <= value < upperBound` on an optional property (null never matches).
    public func contains(_ range: Range<T.Wrapped>) -> Query<Bool> {
        Query<Bool>(.and(
            .comparison(.greaterThanOrEqual, node, .constant(QueryConstant(range.lowerBound)), options: []),
            .comparison(.lessThan, node, .constant(QueryConstant(range.upperBound)), options: [])))
    }

    /// `lowerBound <= value <= upperBound` on an optional property: `BETWEEN {lo, hi}`.
    public func contains(_ range: ClosedRange<T.Wrapped>) -> Query<Bool> {
        Query<Bool>(.comparison(.between, node, .constant(.sequence([range.lowerBound, range.upperBound])), options: []))
    }
}

// MARK: Enums

extension Query where T: PersistableEnum {
    /// The query on the enum's raw value, for operators the enum lacks (`$0.mood.rawValue.starts(with: "h")`).
    public var rawValue: Query<T.RawValue> { Query<T.RawValue>(node) }
}

extension Query where T: OptionalProtocol, T.Wrapped: PersistableEnum {
    /// The query on the optional enum's raw value.
    public var rawValue: Query<T.Wrapped.RawValue?> { Query<T.Wrapped.RawValue?>(node) }
}

extension Query where T: _HasPersistedType {
    /// The query on the stored form of the value (the raw value of an enum; the value itself otherwise).
    public var persistableValue: Query<T.PersistedType> { Query<T.PersistedType>(node) }
}
