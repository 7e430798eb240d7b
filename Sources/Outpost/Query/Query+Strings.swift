import Foundation
import OutpostCore

extension Query where T: _HasPersistedType, T.PersistedType: _QueryString {
    /// `LIKE`: `?` matches one character and `*` any number. `like("R*x", caseInsensitive: true)`
    /// is `LIKE[c] "R*x"`.
    public func like(_ value: T, caseInsensitive: Bool = false) -> Query<Bool> {
        Query<Bool>(.comparison(.like, node, .constant(QueryConstant(value)),
                                options: caseInsensitive ? [.caseInsensitive] : []))
    }

    /// `LIKE` against another property.
    public func like<U>(_ column: Query<U>, caseInsensitive: Bool = false) -> Query<Bool> {
        Query<Bool>(.comparison(.like, node, column.node, options: caseInsensitive ? [.caseInsensitive] : []))
    }
}

extension Query where T: _HasPersistedType, T.PersistedType: _QueryBinary {
    /// `CONTAINS`: the value holds `value` as a substring. `options` adds `[c]`, `[d]` or `[cd]`.
    public func contains(_ value: T, options: StringOptions = []) -> Query<Bool> {
        Query<Bool>(.comparison(.contains, node, .constant(QueryConstant(value)), options: options))
    }

    /// `CONTAINS` against another property.
    public func contains<U>(_ column: Query<U>, options: StringOptions = []) -> Query<Bool> {
        Query<Bool>(.comparison(.contains, node, column.node, options: options))
    }

    /// `BEGINSWITH`.
    public func starts(with value: T, options: StringOptions = []) -> Query<Bool> {
        Query<Bool>(.comparison(.beginsWith, node, .constant(QueryConstant(value)), options: options))
    }

    /// `BEGINSWITH` against another property.
    public func starts<U>(with column: Query<U>, options: StringOptions = []) -> Query<Bool> {
        Query<Bool>(.comparison(.beginsWith, node, column.node, options: options))
    }

    /// `ENDSWITH`.
    public func ends(with value: T, options: StringOptions = []) -> Query<Bool> {
        Query<Bool>(.comparison(.endsWith, node, .constant(QueryConstant(value)), options: options))
    }

    /// `ENDSWITH` against another property.
    public func ends<U>(with column: Query<U>, options: StringOptions = []) -> Query<Bool> {
        Query<Bool>(.comparison(.endsWith, node, column.node, options: options))
    }

    /// `==` with options: `equals("rex", options: .caseInsensitive)` is `==[c] "rex"`.
    public func equals(_ value: T, options: StringOptions = []) -> Query<Bool> {
        Query<Bool>(.comparison(.equal, node, .constant(QueryConstant(value)), options: options))
    }

    /// `==` with options against another property.
    public func equals<U>(_ column: Query<U>, options: StringOptions = []) -> Query<Bool> {
        Query<Bool>(.comparison(.equal, node, column.node, options: options))
    }

    /// `!=` with options.
    public func notEquals(_ value: T, options: StringOptions = []) -> Query<Bool> {
        Query<Bool>(.comparison(.notEqual, node, .constant(QueryConstant(value)), options: options))
    }

    /// `!=` with options against another property.
    public func notEquals<U>(_ column: Query<U>, options: StringOptions = []) -> Query<Bool> {
        Query<Bool>(.comparison(.notEqual, node, column.node, options: options))
    }

    /// `lhs > rhs`: strings and data ordered by their bytes (UTF-8 for strings), as Realm orders them.
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
