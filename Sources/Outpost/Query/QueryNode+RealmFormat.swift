import Foundation
import OutpostCore

/// Prints a `QueryNode` the way Realm's `Query._constructPredicate()` does: `NSPredicate` format text with a `%@` for
/// every constant and the constants in order. Realm's tests (and code that logs queries) compare these strings, so the
/// shape is Realm's exactly: every comparison in parentheses, `&&`/`||`, `NOT ` inside the parentheses of what it
/// negates, a Bool key path alone as `flag == true`, map keys as `[%@]` arguments.
struct RealmPredicateFormat {
    private(set) var text = ""
    private(set) var arguments: [Any] = []
    private var subqueryCounter = 0

    static func format(_ node: QueryNode) -> (String, [Any]) {
        var format = RealmPredicateFormat()
        format.build(node, isNewNode: true)
        return (format.text, format.arguments)
    }

    private mutating func build(_ node: QueryNode, prefix: String? = nil, isNewNode: Bool = false) {
        switch node {
        case .constant(let constant):
            text += "%@"
            arguments.append(Self.argument(constant))
        case .keyPath(let path, _, let requiresAny):
            if isNewNode {
                appendPath(path)
                text += " == true"
                return
            }
            if requiresAny { text += "ANY " }
            appendPath(path)
        case .not(let child):
            if case .keyPath(let path, _, _) = child, isNewNode {
                appendPath(path)
                text += " == false"
                return
            }
            build(child, prefix: "NOT ")
        case .and(let lhs, let rhs):
            compound(lhs, "&&", rhs, prefix: prefix)
        case .or(let lhs, let rhs):
            compound(lhs, "||", rhs, prefix: prefix)
        case .comparison(.between, let lhs, .constant(.list(let bounds)), _) where bounds.count == 2:
            text += "(" + (prefix ?? "")
            build(lhs)
            text += " BETWEEN {"
            build(.constant(bounds[0]))
            text += ", "
            build(.constant(bounds[1]))
            text += "})"
        case .comparison(let op, let lhs, let rhs, let options):
            text += "(" + (prefix ?? "")
            build(lhs)
            // Realm's `geoWithin` prints as `IN` with the shape as the argument.
            text += " \(op == .geoWithin ? "IN" : op.rawValue)\(Self.optionsText(options)) "
            build(rhs)
            text += ")"
        case .subqueryCount(let inner):
            subqueryCounter += 1
            let variable = "$col\(subqueryCounter)"
            var collection: [QueryKeyPath.Component]?
            let rewritten = QueryPredicateBuilder.rewrite(inner, variable: variable, collection: &collection)
            text += "SUBQUERY("
            appendPath(collection ?? [])
            text += ", \(variable), "
            build(rewritten)
            text += ").@count"
        }
    }

    private mutating func compound(_ lhs: QueryNode, _ op: String, _ rhs: QueryNode, prefix: String?) {
        text += (prefix ?? "") + "("
        build(lhs, isNewNode: true)
        text += " \(op) "
        build(rhs, isNewNode: true)
        text += ")"
    }

    /// Names joined by dots; a map key is a `[%@]` subscript with the key as an argument, as in Realm.
    private mutating func appendPath(_ path: [QueryKeyPath.Component]) {
        var first = true
        for component in path {
            switch component {
            case .mapKey(let key):
                text += "[%@]"
                arguments.append(key)
                continue
            case .index(let position):
                text += "[%@]"
                arguments.append(position)
                continue
            case .all:
                // Realm's spelling of `[*]` in NSPredicate format.
                text += "[%K]"
                arguments.append("#any")
                continue
            case .argumentSubscript(let index):
                text += "[$\(index)]"
                continue
            case .property(let name): text += (first ? "" : ".") + name
            case .aggregate(let aggregate): text += (first ? "" : ".") + aggregate.rawValue
            case .keys: text += (first ? "" : ".") + "@allKeys"
            case .values: text += (first ? "" : ".") + "@allValues"
            }
            first = false
        }
    }

    private static func optionsText(_ options: StringOptions) -> String {
        if options.isEmpty { return "" }
        return "[" + (options.contains(.caseInsensitive) ? "c" : "") + (options.contains(.diacriticInsensitive) ? "d" : "")
            + "]"
    }

    private static func argument(_ constant: QueryConstant) -> Any {
        switch constant {
        case .value(let value): value.swiftValue
        case .object(let object): object
        case .list(let items): items.map(argument)
        case .geo(let shape): shape
        case .memberwise(_, let original): original
        case .mixedCollection(let value): value
        }
    }
}

extension Query {
    /// Realm's: the query as `NSPredicate` format text and its arguments (what Realm's tests compare).
    public func _constructPredicate() -> (String, [Any]) {
        RealmPredicateFormat.format(node)
    }
}
