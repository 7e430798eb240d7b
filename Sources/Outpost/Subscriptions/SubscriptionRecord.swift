import Foundation
import OutpostCore

/// One subscription as stored in the file: name, class and query text.
struct SubscriptionRecord: Hashable, Sendable {
    var name: String?
    var className: String
    var query: String
    var createdAt: Date
    var updatedAt: Date

    var json: JSONValue {
        var o: [String: JSONValue] = [
            "class": .string(className), "query": .string(query),
            "createdAt": .double(createdAt.timeIntervalSince1970), "updatedAt": .double(updatedAt.timeIntervalSince1970),
        ]
        if let name { o["name"] = .string(name) }
        return .object(o)
    }

    init(name: String?, className: String, query: String, createdAt: Date = Date(), updatedAt: Date = Date()) {
        self.name = name
        self.className = className
        self.query = query
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    init?(json: JSONValue) {
        guard case .object(let o) = json, case .string(let c)? = o["class"], case .string(let q)? = o["query"] else {
            return nil
        }
        className = c
        query = q
        if case .string(let n)? = o["name"] { name = n }
        func date(_ key: String) -> Date {
            switch o[key] {
            case .double(let d)?: Date(timeIntervalSince1970: d)
            case .int(let i)?: Date(timeIntervalSince1970: Double(i))
            default: Date()
            }
        }
        createdAt = date("createdAt")
        updatedAt = date("updatedAt")
    }

    static func encode(_ records: [SubscriptionRecord]) -> String { JSONValue.array(records.map(\.json)).text }

    static func decode(_ text: String) -> [SubscriptionRecord] {
        guard case .array(let items)? = JSONValue.parse(text) else { return [] }
        return items.compactMap(SubscriptionRecord.init(json:))
    }

    /// The protocol's query per class: each class's queries as `(q1) OR (q2)`, sorted, duplicates dropped.
    static func protocolQueries(_ records: [SubscriptionRecord]) -> [String: String] {
        var byClass: [String: Set<String>] = [:]
        for r in records { byClass[r.className, default: []].insert(r.query) }
        return byClass.mapValues { queries in
            let sorted = queries.sorted()
            return sorted.count == 1 ? sorted[0] : sorted.map { "(\($0))" }.joined(separator: " OR ")
        }
    }
}

/// A subscription set's state inside Outpost (finer than the public `SyncSubscriptionState`).
enum SubscriptionSetState: Equatable, Sendable {
    case pending
    case bootstrapping
    case awaitingMark
    case complete
    case error(String)
    case superseded

    var text: String {
        switch self {
        case .pending: "pending"
        case .bootstrapping: "bootstrapping"
        case .awaitingMark: "awaitingMark"
        case .complete: "complete"
        case .error: "error"
        case .superseded: "superseded"
        }
    }

    init(text: String, error: String?) {
        switch text {
        case "bootstrapping": self = .bootstrapping
        case "awaitingMark": self = .awaitingMark
        case "complete": self = .complete
        case "error": self = .error(error ?? "")
        case "superseded": self = .superseded
        default: self = .pending
        }
    }

    var isFinished: Bool {
        switch self {
        case .complete, .error, .superseded: true
        default: false
        }
    }
}
