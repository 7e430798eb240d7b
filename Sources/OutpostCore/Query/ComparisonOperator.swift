/// The operator of a comparison predicate.
public enum ComparisonOperator: String, Hashable, Sendable, CaseIterable {
    case equal = "=="
    case notEqual = "!="
    case lessThan = "<"
    case lessThanOrEqual = "<="
    case greaterThan = ">"
    case greaterThanOrEqual = ">="
    case beginsWith = "BEGINSWITH"
    case endsWith = "ENDSWITH"
    case contains = "CONTAINS"
    case like = "LIKE"
    /// `lhs IN {…}` or `lhs IN listKeyPath`.
    case `in` = "IN"
    /// `lhs BETWEEN {low, high}`; the right operand is a two-element list.
    case between = "BETWEEN"
    /// `location GEOWITHIN geoCircle([lon, lat], radians)`: the left side is a GeoJSON-shaped point
    /// (`{"type": "Point", "coordinates": [lon, lat]}`, an embedded object on the client).
    case geoWithin = "GEOWITHIN"

    /// True for the string operators that take `[c]` and `[d]`.
    public var isStringOperator: Bool {
        switch self {
        case .beginsWith, .endsWith, .contains, .like: true
        default: false
        }
    }
}

/// `[c]` (case-insensitive) and `[d]` (diacritic-insensitive) string options.
public struct StringOptions: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let caseInsensitive = StringOptions(rawValue: 1)
    public static let diacriticInsensitive = StringOptions(rawValue: 2)
}

/// How a comparison over a to-many key path combines its elements.
public enum Quantifier: String, Hashable, Sendable {
    /// Implicit or explicit `ANY`: true if one element matches.
    case any = "ANY"
    /// `ALL`: true if every element matches (and for an empty collection).
    case all = "ALL"
    /// `NONE`: true if no element matches.
    case none = "NONE"
}
