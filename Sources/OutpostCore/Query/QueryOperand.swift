/// One side of a comparison.
public indirect enum QueryOperand: Hashable, Sendable {
    /// A key path evaluated on the object being tested.
    case keyPath(QueryKeyPath)
    /// A literal value.
    case value(Value)
    /// An argument not yet bound: `$0`, `$1`, … (and `%@`, numbered in order of appearance).
    case argument(Int)
    /// A literal list `{1, 2, 3}` (for `IN`, `BETWEEN` and comparisons with lists).
    case list([QueryOperand])
    /// `SUBQUERY(collection, $x, predicate).@count`: the number of matching elements (an int).
    case subquery(QuerySubquery)
    /// The area on the right of `GEOWITHIN`: `geoBox(…)`, `geoPolygon(…)`, `geoCircle(…)`.
    case geo(GeoShape)
}
