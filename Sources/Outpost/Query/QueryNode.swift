import Foundation
import OutpostCore

/// The tree a type-safe `Query` builds before it becomes a `QueryPredicate`. Key paths keep track
/// of the collection they pass through, so that comparisons get their implicit `ANY`, aggregates
/// go after the collection and subqueries know which collection they range over.
indirect enum QueryNode {
    /// A key path from the queried object. `collectionIndex` is the position of the first to-many
    /// component; `requiresAny` is set while a comparison on the path needs `ANY`.
    case keyPath([QueryKeyPath.Component], collectionIndex: Int?, requiresAny: Bool)
    case constant(QueryConstant)
    case not(QueryNode)
    case and(QueryNode, QueryNode)
    case or(QueryNode, QueryNode)
    case comparison(ComparisonOperator, QueryNode, QueryNode, options: StringOptions)
    /// `(predicate over one collection).count`: `SUBQUERY(collection, $colN, predicate).@count`.
    case subqueryCount(QueryNode)

    static var root: QueryNode { .keyPath([], collectionIndex: nil, requiresAny: false) }
}

/// A constant on the right of a comparison.
enum QueryConstant {
    case value(Value)
    /// An object: compared by identity, so it travels as a query argument.
    case object(ObjectBase)
    case list([QueryConstant])
    /// The area of a `geoWithin`.
    case geo(any RLMGeospatial)
    /// A custom-persistable value whose persisted form is an (embedded) object, as it was given: compared property
    /// by property, since the object it maps to is never stored (Realm's memberwise equality).
    case memberwise(ObjectBase, original: Any)
    /// A list or dictionary held in an `AnyRealmValue`: one value, compared with a mixed property as a whole.
    case mixedCollection(AnyRealmValue)

    /// The constant for a Swift value of a Realm type; traps for other types (the builder's
    /// signatures only let Realm types through).
    init(_ value: Any) {
        if let mixed = value as? AnyRealmValue, mixed.listValue != nil || mixed.dictionaryValue != nil {
            self = .mixedCollection(mixed)
            return
        }
        if let custom = value as? any _CustomPersistable, let object = custom._persisted as? ObjectBase {
            self = .memberwise(object, original: value)
            return
        }
        guard let stored = ValueConversion.stored(value, realm: nil) else {
            preconditionFailure("Cannot use a value of type '\(type(of: value))' in a query")
        }
        self.init(stored: stored)
    }

    init(stored: _StoredValue) {
        switch stored {
        case .object(let o): self = .object(o)
        case .list(let items): self = .list(items.map(QueryConstant.init(stored:)))
        case .dictionary:
            preconditionFailure("Cannot compare with a dictionary in a query")
        default: self = .value(stored.value())
        }
    }

    /// The constants for the elements of a sequence (`in(_:)`, `containsAny(in:)`).
    static func sequence<S: Sequence>(_ elements: S) -> QueryConstant {
        .list(elements.map { QueryConstant($0) })
    }
}

extension QueryNode {
    /// The key path extended by `components`. `startsCollection` marks the first component as a
    /// to-many step (a list, set, map or linking objects property).
    func appending(_ components: [QueryKeyPath.Component], startsCollection: Bool = false) -> QueryNode {
        guard case .keyPath(let path, let index, let any) = self else {
            preconditionFailure("Cannot apply a key path to a query expression that is not a key path")
        }
        let newIndex = index ?? (startsCollection ? path.count : nil)
        return .keyPath(path + components, collectionIndex: newIndex, requiresAny: any || startsCollection)
    }

    /// The key path with its `ANY` dropped (for `@count`, map subscripts and `value IN collection`),
    /// optionally extended by one component.
    func erasingAny(appending component: QueryKeyPath.Component? = nil) -> QueryNode {
        guard case .keyPath(let path, let index, _) = self else {
            preconditionFailure("Cannot apply a key path to a query expression that is not a key path")
        }
        return .keyPath(path + (component.map { [$0] } ?? []), collectionIndex: index, requiresAny: false)
    }

    /// Every element of the collection (or value of the map) between two bounds: `xs.@min >= lo AND xs.@max < hi`
    /// (`<= hi` when `closed`).
    func elementsWithin(_ lower: Any, _ upper: Any, closed: Bool) -> QueryNode {
        .and(.comparison(.greaterThanOrEqual, erasingAny(appending: .aggregate(.min)), .constant(QueryConstant(lower)),
                         options: []),
             .comparison(closed ? .lessThanOrEqual : .lessThan, erasingAny(appending: .aggregate(.max)),
                         .constant(QueryConstant(upper)), options: []))
    }

    /// `dogs.age` → `dogs.@avg.age`: an aggregate placed right after the collection in the path.
    func insertingAggregate(_ aggregate: QueryKeyPath.Aggregate) -> QueryNode {
        guard case .keyPath(var path, let index, _) = self, let index else {
            preconditionFailure("Aggregates (.min, .max, .avg, .sum) need a key path through a collection")
        }
        path.insert(.aggregate(aggregate), at: index + 1)
        return .keyPath(path, collectionIndex: index, requiresAny: false)
    }
}

/// Turns a `QueryNode` into a `QueryPredicate` and the arguments it refers to (objects).
struct QueryPredicateBuilder {
    private(set) var arguments: [Any] = []
    private var subqueryCounter = 0

    /// The predicate of a node used as a condition. A Bool key path alone means `== true`.
    mutating func predicate(_ node: QueryNode) -> QueryPredicate {
        switch node {
        case .keyPath(let path, _, let any):
            return .comparison(.keyPath(QueryKeyPath(path)), .equal, .value(.bool(true)), quantifier: any ? .any : nil)
        case .not(.keyPath(let path, _, let any)):
            return .comparison(.keyPath(QueryKeyPath(path)), .equal, .value(.bool(false)), quantifier: any ? .any : nil)
        case .not(let inner):
            return !predicate(inner)
        case .and:
            var operands: [QueryPredicate] = []
            for operand in Self.chain(node, isAnd: true) { operands.append(predicate(operand)) }
            return .allOf(operands)
        case .or:
            var operands: [QueryPredicate] = []
            for operand in Self.chain(node, isAnd: false) { operands.append(predicate(operand)) }
            return .anyOf(operands)
        case .comparison(let op, .keyPath(let path, let index, let any), .constant(.memberwise(let object, _)), _):
            return predicate(Self.memberwise(op, path: path, collectionIndex: index, requiresAny: any, object: object))
        case .comparison(let op, let lhs, let rhs, let options):
            let (left, quantifier) = operand(lhs)
            let (right, _) = operand(rhs)
            return .comparison(left, op, right, options: options, quantifier: quantifier)
        case .constant, .subqueryCount:
            preconditionFailure("A query expression must be a condition, such as a comparison")
        }
    }

    /// The operands of a chain of `&&` (or `||`) nodes, left to right: `a && b && c` is built as `(a && b) && c`,
    /// and joining it one `&&` at a time copied the growing chain for every operand.
    private static func chain(_ node: QueryNode, isAnd: Bool) -> [QueryNode] {
        var operands: [QueryNode] = []
        var pending = [node]
        while let next = pending.popLast() {
            switch (next, isAnd) {
            case (.and(let lhs, let rhs), true), (.or(let lhs, let rhs), false):
                pending.append(rhs)
                pending.append(lhs)
            default:
                operands.append(next)
            }
        }
        return operands
    }

    private mutating func operand(_ node: QueryNode) -> (QueryOperand, Quantifier?) {
        switch node {
        case .keyPath(let path, _, let any):
            return (.keyPath(QueryKeyPath(path)), any ? .any : nil)
        case .constant(let constant):
            return (operand(constant), nil)
        case .subqueryCount(let inner):
            subqueryCounter += 1
            let variable = "$col\(subqueryCounter)"
            var collection: [QueryKeyPath.Component]?
            let rewritten = Self.rewrite(inner, variable: variable, collection: &collection)
            guard let collection else {
                preconditionFailure("A subquery must contain a key path through a collection")
            }
            return (.subquery(QuerySubquery(collection: QueryKeyPath(collection), variable: variable,
                                            predicate: predicate(rewritten))), nil)
        default:
            preconditionFailure("A comparison needs a key path or a value on each side")
        }
    }

    private mutating func operand(_ constant: QueryConstant) -> QueryOperand {
        switch constant {
        case .value(let value):
            return .value(value)
        case .object(let object):
            arguments.append(object)
            return .argument(arguments.count - 1)
        case .list(let items):
            return .list(items.map { operand($0) })
        case .geo(let shape):
            return .geo(shape._geoShape)
        case .mixedCollection(let value):
            arguments.append(value)
            return .argument(arguments.count - 1)
        case .memberwise:
            preconditionFailure("A custom-persistable object value can only be compared with == or != against a key path")
        }
    }

    /// `path == object` property by property (every property that is not a link or a collection, as Realm); through
    /// a collection, one element must match them all (a subquery), and `!=` means a non-empty collection where none does.
    static func memberwise(_ op: ComparisonOperator, path: [QueryKeyPath.Component], collectionIndex: Int?,
                           requiresAny: Bool, object: ObjectBase) -> QueryNode
    {
        precondition(op == .equal || op == .notEqual,
                     "Unsupported operator for a custom-persistable object value: only == and != compare member by member")
        let schema = object.objectSchema
        var members: [QueryNode] = []
        for property in schema.allProperties {
            precondition(!property.isArray && !property.isSet && !property.isMap,
                         "Unsupported property '\(schema.className).\(property.name)' for memberwise equality query: equality on collections is not implemented.")
            precondition(property.type != .object && property.type != .linkingObjects,
                         "Unsupported property '\(schema.className).\(property.name)' for memberwise equality query: object links are not implemented.")
            let value = object.value(forKey: property.name)
            members.append(.comparison(.equal, .keyPath(path + [.property(property.name)], collectionIndex: collectionIndex,
                                                        requiresAny: requiresAny),
                                       .constant(value.map(QueryConstant.init) ?? .value(.null)), options: []))
        }
        let all = members.dropFirst().reduce(members.first ?? .constant(.value(.bool(true)))) { .and($0, $1) }
        guard let collectionIndex else { return op == .equal ? all : .not(all) }
        let count = QueryNode.keyPath(Array(path[...collectionIndex]) + [.aggregate(.count)], collectionIndex: nil,
                                      requiresAny: false)
        let matching = QueryNode.subqueryCount(all)
        let zero = QueryNode.constant(.value(.int(0)))
        if op == .equal { return .comparison(.greaterThan, matching, zero, options: []) }
        return .and(.comparison(.greaterThan, count, zero, options: []), .comparison(.equal, matching, zero, options: []))
    }

    /// The subquery's predicate with its collection prefix replaced by the variable
    /// (`dogs.age > 3` → `$col1.age > 3`); `collection` receives the prefix.
    static func rewrite(_ node: QueryNode, variable: String, collection: inout [QueryKeyPath.Component]?)
        -> QueryNode
    {
        switch node {
        case .keyPath(let path, let index, _):
            guard let index else { return node }
            let prefix = Array(path[...index])
            if let existing = collection, existing != prefix {
                preconditionFailure("Subqueries can only reference one collection; split the query up")
            }
            collection = prefix
            // A map's variable is already its value: `map.@values.x` → `$col1.x`.
            var rest = path[(index + 1)...]
            if rest.first == .values { rest = rest.dropFirst() }
            return .keyPath([.property(variable)] + rest, collectionIndex: nil, requiresAny: false)
        case .constant, .subqueryCount:
            return node
        case .not(let inner):
            return .not(rewrite(inner, variable: variable, collection: &collection))
        case .and(let lhs, let rhs):
            return .and(rewrite(lhs, variable: variable, collection: &collection),
                        rewrite(rhs, variable: variable, collection: &collection))
        case .or(let lhs, let rhs):
            return .or(rewrite(lhs, variable: variable, collection: &collection),
                       rewrite(rhs, variable: variable, collection: &collection))
        case .comparison(let op, let lhs, let rhs, let options):
            return .comparison(op, rewrite(lhs, variable: variable, collection: &collection),
                               rewrite(rhs, variable: variable, collection: &collection), options: options)
        }
    }
}
