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
            }
        }
        return out
    }
}
