import Foundation
import OutpostCore

/// A type-safe query expression, built inside the closure of `where`:
///
/// ```swift
/// let adults = realm.objects(Person.self).where {
///     ($0.name == "Foo" || $0.name == "Bar") && $0.age >= 21
/// }
/// let rexOwners = realm.objects(Owner.self).where { $0.dogs.name == "Rex" }   // ANY dogs.name == "Rex"
/// ```
///
/// `$0` is a `Query<Element>`; member access follows properties, through links and embedded
/// objects (`$0.dog.name`, `$0.address.city`) and into collections (`$0.dogs.age`, which compares
/// with `ANY`). Comparisons and the other operators return a `Query<Bool>`, which combines with `&&`,
/// `||` and `!`; a `Bool` property is a condition on its own (`where { $0.isActive }`).
///
/// | Swift                                    | query language                       |
/// |------------------------------------------|--------------------------------------|
/// | `==` `!=` `<` `<=` `>` `>=`              | the same operators                   |
/// | `.contains(lo...hi)` / `.contains(lo..<hi)` | `BETWEEN {lo, hi}` / `>= lo AND < hi` |
/// | `.in([a, b])`                            | `IN {a, b}`                          |
/// | `.contains(_:options:)`, `.starts(with:)` | `CONTAINS[c]`, `BEGINSWITH`          |
/// | `.ends(with:)`, `.like(_:)`, `.equals(_:)` | `ENDSWITH`, `LIKE`, `==[cd]`         |
/// | `$0.tags.contains("x")`                  | `"x" IN tags`                        |
/// | `$0.tags.containsAny(in: ["x", "y"])`    | `ANY tags IN {"x", "y"}`             |
/// | `.count`, `.min`, `.max`, `.avg`, `.sum` | `@count`, `@min`, `@max`, `@avg`, `@sum` |
/// | `$0.prices["eur"]`, `.keys`, `.values`   | `prices["eur"]`, `@keys`, `@values`  |
/// | `($0.dogs.age > 3).count`                | `SUBQUERY(dogs, $col1, $col1.age > 3).@count` |
///
/// Member access only works on `@Persisted` properties: a key path to anything else (a computed
/// property, a plain stored property) traps, since it names no stored column.
@dynamicMemberLookup
public struct Query<T> {
    let node: QueryNode

    init(_ node: QueryNode) {
        self.node = node
    }

    /// The query on the root object (what `where` passes to its closure).
    init() {
        node = .root
    }

    /// For testing purposes only: a query on the root object.
    public static func _constructForTesting() -> Query<T> {
        Query<T>()
    }

    // MARK: Comparisons

    /// `lhs == rhs`. Enums compare by raw value, objects by identity, `nil` matches null.
    public static func == (_ lhs: Query, _ rhs: T) -> Query<Bool> {
        Query<Bool>(.comparison(.equal, lhs.node, .constant(QueryConstant(rhs)), options: []))
    }

    /// `lhs == rhs` between two properties.
    public static func == (_ lhs: Query, _ rhs: Query) -> Query<Bool> {
        Query<Bool>(.comparison(.equal, lhs.node, rhs.node, options: []))
    }

    /// `lhs != rhs`.
    public static func != (_ lhs: Query, _ rhs: T) -> Query<Bool> {
        Query<Bool>(.comparison(.notEqual, lhs.node, .constant(QueryConstant(rhs)), options: []))
    }

    /// `lhs != rhs` between two properties.
    public static func != (_ lhs: Query, _ rhs: Query) -> Query<Bool> {
        Query<Bool>(.comparison(.notEqual, lhs.node, rhs.node, options: []))
    }

    /// True if the value is one of `collection`'s elements: `name IN {"a", "b"}`.
    public func `in`<U: Sequence>(_ collection: U) -> Query<Bool> where U.Element == T {
        Query<Bool>(.comparison(.in, node, .constant(.sequence(collection)), options: []))
    }

    // MARK: Member access

    /// A property of the object: `$0.name`, `$0.dog`, `$0.dogs`.
    public subscript<V>(dynamicMember member: KeyPath<T, V>) -> Query<V> where T: ObjectBase {
        Query<V>(node.appending(Self.components(of: member), startsCollection: Self.isCollection(V.self)))
    }

    /// The property names a key path visits; traps when it names no persisted property.
    static func components<Root: ObjectBase, V>(of keyPath: KeyPath<Root, V>) -> [QueryKeyPath.Component] {
        let names = _KeyPathTracer.names(of: keyPath)
        precondition(!names.isEmpty,
                     "Key path \(keyPath) does not refer to a persisted property of '\(Root.className())'")
        return names.map { .property($0) }
    }

    /// Whether a property of type `V` is a to-many step (list, set, map, linking objects).
    static func isCollection<V>(_ type: V.Type) -> Bool {
        type is any _QueryCollection.Type || type is any _QueryKeyedCollection.Type
    }

    // MARK: Building

    /// The predicate and the arguments it refers to (objects compared by identity).
    func build() -> (QueryPredicate, [Any]) {
        var builder = QueryPredicateBuilder()
        let predicate = builder.predicate(node)
        return (predicate, builder.arguments)
    }
}

extension Query where T == Bool {
    /// The canonical query text of the condition, e.g. `age > 3 AND ANY dogs.name == "Rex"`.
    /// Objects compared by identity print as arguments (`$0`).
    public var _queryText: String { build().0.description }

    /// The condition as a query AST (objects compared by identity are arguments `$0`, `$1`, …).
    public var _predicate: QueryPredicate { build().0 }

    /// Both conditions: `AND`.
    public static func && (_ lhs: Query, _ rhs: Query) -> Query<Bool> {
        Query<Bool>(.and(lhs.node, rhs.node))
    }

    /// Either condition: `OR`.
    public static func || (_ lhs: Query, _ rhs: Query) -> Query<Bool> {
        Query<Bool>(.or(lhs.node, rhs.node))
    }

    /// The condition negated: `NOT (…)`; on a `Bool` property alone, `flag == false`.
    public static prefix func ! (_ query: Query) -> Query<Bool> {
        Query<Bool>(.not(query.node))
    }

    /// Completes a subquery: the number of elements of the one collection the condition refers to
    /// that match it. `($0.dogs.age > 3 && $0.dogs.name == "Rex").count >= 1` is
    /// `SUBQUERY(dogs, $col1, $col1.age > 3 AND $col1.name == "Rex").@count >= 1`.
    public var count: Query<Int> {
        Query<Int>(.subqueryCount(node))
    }
}

extension Query where T: OptionalProtocol, T.Wrapped: ObjectBase {
    /// A property of an optional link or embedded object: `$0.favorite.name`, `$0.address.city`.
    public subscript<V>(dynamicMember member: KeyPath<T.Wrapped, V>) -> Query<V> {
        Query<V>(node.appending(Query<T.Wrapped>.components(of: member), startsCollection: Self.isCollection(V.self)))
    }
}
