import Foundation
import OutpostCore

/// One subscription of a flexible sync Realm: a named or unnamed query on one class.
public struct SyncSubscription: @unchecked Sendable {  // the set is only used on its Realm's thread
    var record: SubscriptionRecord
    /// Held strongly: `realm.subscriptions.first(named:)?.updateQuery(…)` makes a set that nothing else holds, and a
    /// weak reference dropped the change silently. (The set does not hold its subscriptions: no cycle.)
    var set: SyncSubscriptionSet?

    /// The name, when the subscription has one.
    public var name: String? { record.name }
    /// When the subscription was created.
    public var createdAt: Date { record.createdAt }
    /// When its query last changed.
    public var updatedAt: Date { record.updatedAt }
    /// The class the query is on.
    public var objectClassName: String { record.className }
    /// The query text (Realm Query Language).
    public var queryString: String { record.query }

    /// Replaces the query with one on the same class (only inside `update {}`).
    public func updateQuery<T: Object>(toType type: T.Type, where query: @escaping (Query<T>) -> Query<Bool>) {
        guard let set else { return }
        set.requireUpdating()
        guard type.className() == record.className else {
            fatalError("Updating a subscription query of a different Object Type is not allowed.")
        }
        set.replaceQuery(of: record, with: SubscriptionQueryText.text(query(Query<T>()), className: record.className, realm: set.realm))
    }

    /// Replaces the query with query text (only inside `update {}`).
    public func updateQuery(to query: String, _ args: Any...) {
        guard let set else { return }
        set.requireUpdating()
        set.replaceQuery(of: record, with: SubscriptionQueryText.text(query, args, className: record.className, realm: set.realm))
    }
}

/// A subscription to add: a class and a query, optionally named. `QuerySubscription<Item>(name: "simple-items")
/// { $0.complexity <= 4 }`.
public struct QuerySubscription<T: Object> {
    let name: String?
    let query: (RealmInstance) -> String

    /// All objects of `T` (`TRUEPREDICATE`), or those matching `query`.
    public init(name: String? = nil, query: ((Query<T>) -> Query<Bool>)? = nil) {
        self.name = name
        if let query {
            self.query = { realm in SubscriptionQueryText.text(query(Query<T>()), className: T.className(), realm: realm) }
        } else {
            self.query = { _ in "TRUEPREDICATE" }
        }
    }

    /// Objects of `T` matching query text, with `%@` / `$0` arguments.
    public init(name: String? = nil, where predicateFormat: String, _ args: Any...) {
        self.name = name
        self.query = { realm in SubscriptionQueryText.text(predicateFormat, args, className: T.className(), realm: realm) }
    }
}

/// Query text for subscriptions: the printed query with its arguments bound as literals, and its properties named as
/// they are stored (`Property.columnName`), the only names the server knows.
enum SubscriptionQueryText {
    static func text(_ query: Query<Bool>, className: String, realm: RealmInstance) -> String {
        let (predicate, args) = query.build()
        return bind(predicate, args, className: className, realm: realm)
    }

    static func text(_ format: String, _ args: [Any], className: String, realm: RealmInstance) -> String {
        do {
            let (format, args) = try QueryFormat.substitutingKeyPaths(format, args)
            return bind(try QueryParser.parsePredicate(format), args, className: className, realm: realm)
        } catch {
            fatalError("Invalid subscription query '\(format)': \(error)")
        }
    }

    static func bind(_ predicate: QueryPredicate, _ args: [Any], className: String, realm: RealmInstance) -> String {
        let values = args.map { arg -> Value in
            guard let stored = ValueConversion.stored(arg, realm: realm) else { return .null }
            return realm.syncValue(stored)
        }
        do {
            return QueryPrinter.print(StoredNames(realm: realm).rename(try predicate.binding(values), className: className))
        } catch {
            fatalError("Invalid subscription query '\(predicate)': \(error)")
        }
    }
}
