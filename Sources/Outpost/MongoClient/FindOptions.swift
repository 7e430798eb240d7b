import OutpostCore

/// Options of ``MongoCollection/find(filter:options:)`` and ``MongoCollection/findOneDocument(filter:options:)``,
/// as Realm Swift's `FindOptions`.
///
/// ```swift
/// let options = FindOptions(10, ["name": 1], [["age": -1], ["name": 1]])
/// ```
///
/// A collection reads the options when a call starts; changing them afterwards does not affect that call.
public final class FindOptions {
    /// The most documents to return; 0 returns all of them.
    public var limit: Int
    /// The fields to return (`["a": 1]`) or to leave out (`["a": 0]`).
    public var projection: Document?
    /// The order, one single-field document per key, most significant first (`[["age": -1], ["name": 1]]`).
    public var sorting: [Document]
    /// The order as one document. A dictionary has no key order, so a document with several fields is refused
    /// by the server; use ``sorting``.
    public var sort: Document?

    /// - Parameters:
    ///   - limit: the most documents to return; 0 returns all.
    ///   - projection: the fields to return or leave out.
    ///   - sorting: the order, most significant key first.
    public init(_ limit: Int = 0, _ projection: Document? = nil, _ sorting: [Document] = []) {
        self.limit = limit
        self.projection = projection
        self.sorting = sorting
        self.sort = nil
    }

    /// Realm's older form with one sort document.
    public init(limit: Int?, projection: Document?, sort: Document?) {
        self.limit = limit ?? 0
        self.projection = projection
        self.sorting = []
        self.sort = sort
    }

    /// The options' request fields.
    func fields(includeLimit: Bool) throws(AppError) -> [String: JSONValue] {
        var fields: [String: JSONValue] = [:]
        if includeLimit, limit > 0 { fields["limit"] = .int(Int64(limit)) }
        if let projection { fields["projection"] = try BSONConversion.json(projection, path: "projection") }
        if !sorting.isEmpty {
            var keys: [JSONValue] = []
            for (i, key) in sorting.enumerated() { keys.append(try BSONConversion.json(key, path: "sorting[\(i)]")) }
            fields["sort"] = .array(keys)
        } else if let sort {
            fields["sort"] = try BSONConversion.json(sort, path: "sort")
        }
        return fields
    }
}
