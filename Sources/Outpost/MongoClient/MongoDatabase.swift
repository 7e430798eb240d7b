/// A database of a ``MongoClient``, as Realm Swift's `MongoDatabase`.
public final class MongoDatabase: Sendable {
    let client: MongoClient
    /// The database name (accepted and ignored by outpost-server, which has one database per app).
    public let name: String

    init(client: MongoClient, name: String) {
        self.client = client
        self.name = name
    }

    /// The collection with this name (a class name of the synced schema, like `Item`).
    public func collection(withName name: String) -> MongoCollection {
        MongoCollection(database: self, name: name)
    }
}
