/// Direct access to the server's collections as a user, over the Data API, as Realm Swift's `MongoClient`
/// (`user.mongoClient("mongodb-atlas")`).
///
/// outpost-server serves one database per app: database names are accepted and ignored, and every
/// ``MongoDatabase`` reaches the same collections. The app's rules apply to every request, per document.
public final class MongoClient: Sendable {
    let user: User
    /// The service name given to ``User/mongoClient(_:)``.
    public let name: String

    init(user: User, name: String) {
        self.user = user
        self.name = name
    }

    /// The database with this name.
    public func database(named name: String) -> MongoDatabase {
        MongoDatabase(client: self, name: name)
    }
}
