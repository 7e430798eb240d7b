import Foundation
import OutpostCore

/// Field paths and value ordering for the Data API.
enum DataAPIValues {
    static func parts(_ path: String) -> [String] {
        path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    /// The value at a dotted path through embedded documents, or nil.
    static func get(_ path: String, in document: Document) -> Value? {
        var current = Value.document(document)
        for key in parts(path) {
            guard case .document(let inner) = current, let next = inner[key] else { return nil }
            current = next
        }
        return current
    }

    /// Sets the value at a dotted path, creating embedded documents on the way.
    ///
    /// - Returns: false when a part of the path holds a value that is not a document.
    static func set(_ path: String, to value: Value, in document: inout Document) -> Bool {
        set(parts(path)[...], value, &document)
    }

    private static func set(_ keys: ArraySlice<String>, _ value: Value, _ document: inout Document) -> Bool {
        guard let key = keys.first else { return false }
        if keys.count == 1 {
            document[key] = value
            return true
        }
        var inner: Document
        switch document[key] {
        case nil, .null?: inner = Document()
        case .document(let existing)?: inner = existing
        default: return false
        }
        guard set(keys.dropFirst(), value, &inner) else { return false }
        document[key] = .document(inner)
        return true
    }

    /// Removes the value at a dotted path (nothing happens when it is missing).
    static func remove(_ path: String, from document: inout Document) {
        remove(parts(path)[...], &document)
    }

    private static func remove(_ keys: ArraySlice<String>, _ document: inout Document) {
        guard let key = keys.first else { return }
        if keys.count == 1 {
            document[key] = nil
            return
        }
        guard case .document(var inner)? = document[key] else { return }
        remove(keys.dropFirst(), &inner)
        document[key] = .document(inner)
    }

    /// A number as a Double (nil for other values).
    static func number(_ value: Value) -> Double? {
        switch value {
        case .int(let v): Double(v)
        case .double(let v): v
        case .float(let v): Double(v)
        case .decimal128(let v): Double("\(v)")
        default: nil
        }
    }

    /// MongoDB's type order for sorting: missing/null < numbers < strings < documents < arrays < binary
    /// < ObjectId < bool < date; other types after.
    private static func rank(_ value: Value?) -> Int {
        switch value {
        case nil, .null?: 0
        case .int?, .double?, .float?, .decimal128?: 1
        case .string?: 2
        case .document?: 3
        case .array?: 4
        case .data?: 5
        case .objectId?: 6
        case .bool?: 7
        case .date?: 8
        case .uuid?: 9
        case .link?: 10
        }
    }

    /// -1, 0 or 1.
    static func compare(_ a: Value?, _ b: Value?) -> Int {
        let (ra, rb) = (rank(a), rank(b))
        if ra != rb { return ra < rb ? -1 : 1 }
        switch (a, b) {
        case (let x?, let y?) where ra == 1:
            return sign(number(x) ?? 0, number(y) ?? 0)
        case (.string(let x)?, .string(let y)?): return sign(x, y)
        case (.objectId(let x)?, .objectId(let y)?): return sign(x, y)
        case (.bool(let x)?, .bool(let y)?): return sign(x ? 1 : 0, y ? 1 : 0)
        case (.date(let x)?, .date(let y)?): return sign(x, y)
        case (.uuid(let x)?, .uuid(let y)?): return sign(x.uuidString, y.uuidString)
        case (.data(let x)?, .data(let y)?):
            return x.count != y.count ? sign(x.count, y.count) : sign(x.base64EncodedString(), y.base64EncodedString())
        case (.array(let x)?, .array(let y)?):
            for (l, r) in zip(x, y) {
                let c = compare(l, r)
                if c != 0 { return c }
            }
            return sign(x.count, y.count)
        case (.document(let x)?, .document(let y)?):
            return sign(Value.document(x).extendedJSON.text, Value.document(y).extendedJSON.text)
        default:
            return 0
        }
    }

    private static func sign<T: Comparable>(_ a: T, _ b: T) -> Int { a < b ? -1 : (b < a ? 1 : 0) }

    /// Sorts documents by primary key (the order of every scan).
    static func sortedByPrimaryKey(_ documents: [Document]) -> [Document] {
        documents.sorted { compare($0["_id"], $1["_id"]) < 0 }
    }
}
