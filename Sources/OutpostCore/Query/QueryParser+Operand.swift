extension QueryParser.State {
    /// Words that cannot start a key path because they would make the grammar ambiguous.
    private static let reservedWords: Set<String> = [
        "and", "or", "not", "in", "between", "beginswith", "endswith", "contains", "like", "truepredicate",
        "falsepredicate",
    ]

    mutating func parseOperand() throws(QueryError) -> QueryOperand {
        let token = current
        switch token.kind {
        case .symbol("{"):
            return try parseList()
        case .argument(let number):
            try useArgumentStyle(.numbered, at: token)
            advance()
            return .argument(number)
        case .positionalArgument:
            try useArgumentStyle(.positional, at: token)
            advance()
            nextPositionalArgument += 1
            return .argument(nextPositionalArgument - 1)
        case .string(let string):
            advance()
            return .value(.string(string))
        case .integer(let integer):
            advance()
            return .value(.int(integer))
        case .double(let double):
            advance()
            return .value(.double(double))
        case .literal(let value):
            advance()
            return .value(value)
        case .identifier(let word):
            switch word.lowercased() {
            case "true", "false":
                advance()
                return .value(.bool(word.lowercased() == "true"))
            case "nil", "null":
                advance()
                return .value(.null)
            case let lower where Self.reservedWords.contains(lower):
                throw error("expected a value or key path", at: token)
            case "subquery" where peek(1).isSymbol("("):
                return try parseSubquery()
            case "geobox", "geopolygon", "geocircle" where peek(1).isSymbol("("):
                return try parseGeoShape(word.lowercased())
            default:
                return .keyPath(try parseKeyPath())
            }
        default:
            throw error("expected a value or key path", at: token)
        }
    }

    /// `SUBQUERY(collection, $x, predicate).@count` (or `.@size`).
    private mutating func parseSubquery() throws(QueryError) -> QueryOperand {
        try enter(at: advance())
        advance()
        defer { depth -= 1 }
        let collection = try parseKeyPath()
        try expectSymbol(",", "expected ','")
        guard case .identifier(let variable) = current.kind, variable.hasPrefix("$"), variable.count > 1 else {
            throw error("expected a subquery variable such as $x", at: current)
        }
        advance()
        try expectSymbol(",", "expected ','")
        let predicate = try parseOr()
        try expectSymbol(")", "expected ')'")
        guard current.isSymbol("."), case .collectionOperator(let name) = peek(1).kind,
              name == "@count" || name == "@size"
        else { throw error("SUBQUERY must be followed by .@count", at: current) }
        advance()
        advance()
        return .subquery(QuerySubquery(collection: collection, variable: variable, predicate: predicate))
    }

    private mutating func useArgumentStyle(_ style: ArgumentStyle, at token: QueryToken) throws(QueryError) {
        if let argumentStyle, argumentStyle != style {
            throw error("cannot mix '%@' and '$n' arguments", at: token)
        }
        argumentStyle = style
    }

    /// `{a, b, …}` of values and arguments.
    private mutating func parseList() throws(QueryError) -> QueryOperand {
        try enter(at: advance())
        defer { depth -= 1 }
        var elements: [QueryOperand] = []
        if current.isSymbol("}") {
            advance()
            return .list(elements)
        }
        while true {
            let token = current
            let element = try parseOperand()
            switch element {
            case .keyPath, .list, .subquery: throw error("a list may only hold values and arguments", at: token)
            default: elements.append(element)
            }
            if current.isSymbol(",") {
                advance()
                continue
            }
            try expectSymbol("}", "expected ',' or '}'")
            return .list(elements)
        }
    }

    /// `name`, `dog.owner.name`, `tags.@count`, `prices["eur"]`, `prices.@keys`, `dogs.@avg.age`.
    mutating func parseKeyPath() throws(QueryError) -> QueryKeyPath {
        guard case .identifier(let first) = current.kind else {
            throw error("expected a key path", at: current)
        }
        advance()
        var components: [QueryKeyPath.Component] = [.property(first)]
        while true {
            if current.isSymbol(".") {
                if components.last.flatMap(Self.aggregate) == .count {
                    throw error("@count and @size must end a key path", at: current)
                }
                advance()
                components.append(try parseKeyPathStep())
            } else if current.isSymbol("["), peek(2).isSymbol("]"), let subscriptComponent = try subscriptStep(peek(1)) {
                advance()
                advance()
                advance()
                components.append(subscriptComponent)
            } else {
                return QueryKeyPath(components)
            }
        }
    }

    /// What `[token]` after a key path means: a map key or a mixed dictionary's key (`["key"]`), an index into a
    /// nested list (`[0]`), every nested element (`[*]`) or an argument bound later (`[$0]`, `[%@]`).
    private mutating func subscriptStep(_ token: QueryToken) throws(QueryError) -> QueryKeyPath.Component? {
        switch token.kind {
        case .string(let key): return .mapKey(key)
        case .integer(let index):
            guard index >= 0, index <= Int64(Int32.max) else { throw error("a list index must not be negative", at: token) }
            return .index(Int(index))
        case .symbol("*"): return .all
        case .argument(let number):
            try useArgumentStyle(.numbered, at: token)
            return .argumentSubscript(number)
        case .positionalArgument:
            try useArgumentStyle(.positional, at: token)
            nextPositionalArgument += 1
            return .argumentSubscript(nextPositionalArgument - 1)
        default: return nil
        }
    }

    private mutating func parseKeyPathStep() throws(QueryError) -> QueryKeyPath.Component {
        let token = current
        switch token.kind {
        case .identifier(let name):
            advance()
            return .property(name)
        case .collectionOperator(let name):
            advance()
            switch name {
            case "@keys": return .keys
            case "@values": return .values
            default: return .aggregate(QueryKeyPath.Aggregate(rawValue: name)!)
            }
        default:
            throw error("expected a property name after '.'", at: token)
        }
    }

    /// `.count` for `@count`/`@size`, the aggregate for the others.
    private static func aggregate(_ component: QueryKeyPath.Component) -> QueryKeyPath.Aggregate? {
        guard case .aggregate(let aggregate) = component else { return nil }
        return aggregate == .size ? .count : aggregate
    }

    /// `geoBox([lon, lat], [lon, lat])`, `geoPolygon({[lon, lat], …}, {…})` or `geoCircle([lon, lat], radians)`.
    private mutating func parseGeoShape(_ name: String) throws(QueryError) -> QueryOperand {
        try enter(at: advance())
        advance()
        defer { depth -= 1 }
        let shape: GeoShape
        switch name {
        case "geobox":
            let lo = try parseGeoPoint()
            try expectSymbol(",", "expected ','")
            shape = .box(bottomLeft: lo, topRight: try parseGeoPoint())
        case "geocircle":
            let center = try parseGeoPoint()
            try expectSymbol(",", "expected ','")
            shape = .circle(center: center, radians: try parseGeoNumber())
        default:
            var rings: [[GeoVertex]] = []
            repeat {
                if !rings.isEmpty { advance() }
                try expectSymbol("{", "expected '{' to start a ring of points")
                var ring = [try parseGeoPoint()]
                while current.isSymbol(",") {
                    advance()
                    ring.append(try parseGeoPoint())
                }
                try expectSymbol("}", "expected '}' to end a ring of points")
                rings.append(ring)
            } while current.isSymbol(",")
            shape = .polygon(rings: rings)
        }
        try expectSymbol(")", "expected ')'")
        return .geo(shape)
    }

    /// `[longitude, latitude]` or `[longitude, latitude, altitude]`.
    private mutating func parseGeoPoint() throws(QueryError) -> GeoVertex {
        try expectSymbol("[", "expected '[' to start a point [longitude, latitude]")
        let longitude = try parseGeoNumber()
        try expectSymbol(",", "expected ','")
        let latitude = try parseGeoNumber()
        var altitude = 0.0
        if current.isSymbol(",") {
            advance()
            altitude = try parseGeoNumber()
        }
        try expectSymbol("]", "expected ']' to end a point")
        return GeoVertex(latitude: latitude, longitude: longitude, altitude: altitude)
    }

    private mutating func parseGeoNumber() throws(QueryError) -> Double {
        let negative = current.isSymbol("-")
        if negative { advance() }
        let token = current
        let number: Double
        switch token.kind {
        case .integer(let i): number = Double(i)
        case .double(let d): number = d
        default: throw error("expected a number", at: token)
        }
        advance()
        return negative ? -number : number
    }
}
