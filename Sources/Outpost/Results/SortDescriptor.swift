import OutpostCore

/// A sort key: a key path and a direction.
public struct SortDescriptor: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let keyPath: String
    public let ascending: Bool

    public init(keyPath: String, ascending: Bool = true) {
        self.keyPath = keyPath
        self.ascending = ascending
    }

    public init(stringLiteral keyPath: String) {
        self.init(keyPath: keyPath)
    }

    /// The same key path sorted the other way.
    public func reversed() -> SortDescriptor {
        SortDescriptor(keyPath: keyPath, ascending: !ascending)
    }

    public var description: String {
        "SortDescriptor(keyPath: \(keyPath), direction: \(ascending ? "ascending" : "descending"))"
    }

    var queryKeyPath: QueryKeyPath {
        QueryKeyPath(properties: keyPath.split(separator: ".").map(String.init))
    }
}
