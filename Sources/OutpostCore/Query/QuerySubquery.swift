/// `SUBQUERY(collection, $variable, predicate).@count`: the number of elements of a to-many key
/// path that match a predicate. Inside `predicate`, key paths starting with `variable` (e.g.
/// `$dog.age`, or `$tag` alone for a list of values) refer to the element being tested.
public struct QuerySubquery: Hashable, Sendable {
    /// The to-many key path whose elements are tested.
    public var collection: QueryKeyPath
    /// The element variable, with its `$`, e.g. `$dog`.
    public var variable: String
    /// The predicate each element is tested against.
    public var predicate: QueryPredicate

    public init(collection: QueryKeyPath, variable: String, predicate: QueryPredicate) {
        self.collection = collection
        self.variable = variable
        self.predicate = predicate
    }
}
