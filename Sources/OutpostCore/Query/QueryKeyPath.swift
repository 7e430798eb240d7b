/// A key path in a query: `dog.name`, `tags.@count`, `prices["eur"]`, `items.@sum.price`.
public struct QueryKeyPath: Hashable, Sendable, CustomStringConvertible {
    /// One step of a key path.
    public enum Component: Hashable, Sendable {
        /// A property name (also a link or embedded-object hop).
        case property(String)
        /// `[key]` or `["key"]` on a map.
        case mapKey(String)
        /// `@count` / `@size` / `@sum` / `@avg` / `@min` / `@max`.
        case aggregate(Aggregate)
        /// `@keys` of a map.
        case keys
        /// `@values` of a map.
        case values
        /// `[0]`: one element of a list nested in a mixed value.
        case index(Int)
        /// `[*]`: every element of a list, or value of a dictionary, nested in a mixed value.
        case all
        /// `[$0]` / `[%@]`: an index (an integer argument) or a key (a string argument), known once bound.
        case argumentSubscript(Int)
    }

    /// A collection operator.
    public enum Aggregate: String, Hashable, Sendable, CaseIterable {
        case count = "@count"
        case size = "@size"
        case sum = "@sum"
        case avg = "@avg"
        case min = "@min"
        case max = "@max"
    }

    public var components: [Component]

    public init(_ components: [Component]) {
        self.components = components
    }

    /// The key path with each `[$n]` replaced by its argument: an integer is an index, a string a key.
    func binding(_ arguments: [Value]) throws(QueryError) -> QueryKeyPath {
        var bound: [Component] = []
        for component in components {
            guard case .argumentSubscript(let index) = component else {
                bound.append(component)
                continue
            }
            guard arguments.indices.contains(index) else {
                throw QueryError(.unknownArgument, "request for argument $\(index) but only \(arguments.count) "
                    + (arguments.count == 1 ? "argument was" : "arguments were") + " provided")
            }
            switch arguments[index] {
            case .int(let i): bound.append(.index(Int(i)))
            case .string(let key): bound.append(.mapKey(key))
            default:
                throw QueryError(.invalidArgument,
                    "a subscript in '\(self)' takes an integer index or a string key, not a \(arguments[index].typeName)")
            }
        }
        return QueryKeyPath(bound)
    }

    /// A plain dotted path of property names.
    public init(properties: [String]) {
        self.components = properties.map { .property($0) }
    }

    /// The dotted text, e.g. `dogs.@count` or `prices["eur"]`.
    public var description: String {
        var out = ""
        for component in components {
            switch component {
            case .property(let name):
                if !out.isEmpty { out += "." }
                out += name
            case .mapKey(let key):
                out += "[\"\(QueryPrinter.escape(key))\"]"
            case .aggregate(let op):
                out += (out.isEmpty ? "" : ".") + op.rawValue
            case .keys:
                out += (out.isEmpty ? "" : ".") + "@keys"
            case .values:
                out += (out.isEmpty ? "" : ".") + "@values"
            case .index(let index):
                out += "[\(index)]"
            case .all:
                out += "[*]"
            case .argumentSubscript(let index):
                out += "[$\(index)]"
            }
        }
        return out
    }
}
