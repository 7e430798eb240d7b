import Foundation
import Outpost
import OutpostServer
import OutpostServerTesting
import Testing

final class Dog: Object {
    @Persisted(primaryKey: true) var my_primary_key: ObjectId
    @Persisted var name: String
}

final class Cat: Object {
    @Persisted var name: String
}

/// Sessions, subscriptions and opening, against a real server.
@Suite(.timeLimit(.minutes(3))) struct SyncSessionTests {
    /// A user's items, written through the Data API (another path into the same server).
    static func seedItems(_ user: User, _ complexities: [Int]) async throws {
        let collection = user.mongoClient("mongodb1").database(named: "test_data").collection(withName: "Item")
        for c in complexities {
            _ = try await collection.insertOne(["_id": .objectId(ObjectId.generate()), "ownerId": .string(user.id),
                                                "itemName": .string("item \(c)"), "complexity": .int64(Int64(c))])
        }
    }

    /// A new email/password user, logged in, and the credentials that log it in again.
    static func registeredUser(_ app: App, email: String) async throws -> (User, Credentials) {
        try await app.emailPasswordAuth.registerUser(email: email, password: "password1")
        let credentials = Credentials.emailPassword(email: email, password: "password1")
        return (try await app.login(credentials: credentials), credentials)
    }

    /// A flexible-sync configuration of `user` subscribed to every `ConvergenceItem`, in its own file.
    static func itemsConfiguration(_ user: User, _ file: String) -> Realm.Configuration {
        var config = user.flexibleSyncConfiguration(initialSubscriptions: { subscriptions in
            subscriptions.append(QuerySubscription<ConvergenceItem>(name: "all"))
        })
        config.objectTypes = [ConvergenceItem.self]
        config.fileURL = config.fileURL!.deletingLastPathComponent().appendingPathComponent(file)
        return config
    }

    @Test func resultsSubscribeAndUnsubscribe() async throws {
        try await withTestServer(configuration: try seedServerApp()) { server in
            try await withClientApp(server) { app in
                let user = try await app.login(credentials: .anonymous)
                try await Self.seedItems(user, [1, 2, 5, 8])
                let config = seedConfiguration(user, subscribed: false)
                let realm = try await Realm(configuration: config)
                let easy = try await realm.objects(Item.self).where { $0.complexity <= 4 }.subscribe(name: "easy")
                #expect(easy.count == 2)
                #expect(realm.subscriptions.count == 1)
                #expect(realm.subscriptions.first(named: "easy")?.queryString == "complexity <= 4")
                // Same query, no name: a new entry; again: no new entry.
                _ = try await realm.objects(Item.self).where { $0.complexity <= 4 }.subscribe()
                _ = try await realm.objects(Item.self).where { $0.complexity <= 4 }.subscribe()
                #expect(realm.subscriptions.count == 2)
                // An existing name with another query replaces the query.
                let hard = try await realm.objects(Item.self).where { $0.complexity > 4 }.subscribe(name: "easy")
                #expect(realm.subscriptions.count == 2)
                #expect(realm.subscriptions.first(named: "easy")?.queryString == "complexity > 4")
                realm.refresh()
                #expect(hard.count == 2)
                #expect(realm.objects(Item.self).count == 4)
                // Unsubscribing the unnamed one leaves the hard ones.
                realm.objects(Item.self).where { $0.complexity <= 4 }.unsubscribe()
                #expect(realm.subscriptions.count == 1)
                try await realm.syncSession!.wait(for: .download)
                try await eventually("the easy items leave the view") {
                    realm.refresh()
                    return realm.objects(Item.self).count == 2
                }
            }
        }
    }

    @Test func subscribeTimesOutWithRealmsError() async throws {
        try await withTestServer(configuration: try seedServerApp()) { server in
            try await withClientApp(server) { app in
                let user = try await app.login(credentials: .anonymous)
                let config = seedConfiguration(user, subscribed: false)
                let realm = try await Realm(configuration: config)
                realm.syncSession!.suspend()
                let error = await #expect(throws: NSError.self) {
                    _ = try await realm.objects(Item.self).subscribe(timeout: 0.2)
                }
                #expect(error?.domain == NSPOSIXErrorDomain)
                #expect(error?.code == Int(ETIMEDOUT))
                #expect(error?.localizedDescription == "Waiting for update timed out after 0.2 seconds.")
                realm.syncSession!.resume()
                try await eventually { realm.subscriptions.state == .complete }
            }
        }
    }

    /// An open that downloads first resumes a suspended session, as the original does (it waited for ever before).
    @Test func anOpenThatDownloadsFirstResumesASuspendedSession() async throws {
        try await withTestServer(configuration: try seedServerApp(appId: "resume-on-open")) { server in
            try await withClientApp(server) { app in
                let user = try await app.login(credentials: .anonymous)
                let config = seedConfiguration(user)
                let realm = try await Realm(configuration: config, downloadBeforeOpen: .always)
                let session = try #require(realm.syncSession)
                session.suspend()
                try await eventually { session.connectionState == .disconnected }
                #expect(session.state == .inactive)
                let again = try await withDeadline(.seconds(30), "the open") {
                    _ = try await Realm(configuration: config, downloadBeforeOpen: .always)
                    return true
                }
                #expect(again)
                #expect(session.state == .active)
                #expect(realm.syncSession?.state == .active)
            }
        }
    }

    @Test func offlineWritesUploadAfterResumeAndSubscriptionsSurviveReopen() async throws {
        try await withTestServer(configuration: try seedServerApp()) { server in
            try await withClientApp(server) { app in
                let user = try await app.login(credentials: .anonymous)
                var config = user.flexibleSyncConfiguration(initialSubscriptions: { subs in
                    subs.append(QuerySubscription<Item>(name: "mine") { $0.complexity <= 4 })
                })
                config.objectTypes = [Item.self]
                var ids: [ObjectId] = []
                do {
                    let realm = try await Realm(configuration: config, downloadBeforeOpen: .always)
                    #expect(realm.subscriptions.count == 1)
                    #expect(realm.subscriptions.state == .complete)
                    let session = try #require(realm.syncSession)
                    #expect(session.state == .active)
                    try await eventually { session.connectionState == .connected }
                    session.suspend()
                    try await eventually { session.connectionState == .disconnected }
                    #expect(session.state == .inactive)
                    for i in 0..<5 {
                        let item = Item()
                        item.ownerId = user.id
                        item.itemName = "offline \(i)"
                        item.complexity = i % 4
                        ids.append(item._id)
                        try realm.write { realm.add(item) }
                    }
                    session.resume()
                    try await session.wait(for: .upload)
                    #expect(session.state == .active)
                }
                // Everything reached the server.
                let collection = user.mongoClient("mongodb1").database(named: "test_data").collection(withName: "Item")
                #expect(try await collection.count(filter: [:]) == 5)

                // A new device (another file) opened with `.always` has the data and the initial subscription.
                var other = config
                other.fileURL = config.fileURL!.deletingLastPathComponent().appendingPathComponent("device2.realm")
                let second = try await Realm(configuration: other, downloadBeforeOpen: .always)
                #expect(Set(second.objects(Item.self).map(\._id)) == Set(ids))
                // The subscription set is stored in the file: a reopen (without re-running the block) keeps it.
                var reopened = other
                reopened.syncConfiguration?.initialSubscriptions = { _ in Issue.record("initialSubscriptions ran again") }
                let third = try await Realm(configuration: reopened, downloadBeforeOpen: .never)
                #expect(third.subscriptions.first(named: "mine")?.queryString == "complexity <= 4")
            }
        }
    }

    @Test func syncedSchemasNeedAnUnderscoreIdPrimaryKey() async throws {
        try await withTestServer(configuration: try seedServerApp()) { server in
            try await withClientApp(server) { app in
                let user = try await app.login(credentials: .anonymous)
                var dogs = user.flexibleSyncConfiguration()
                dogs.objectTypes = [Dog.self]
                let dogError = #expect(throws: Realm.Error.self) { _ = try Realm(configuration: dogs) }
                #expect(dogError?.localizedDescription
                    == "The primary key property on a synchronized Realm must be named '_id' but found 'my_primary_key' for type 'Dog'")
                var cats = user.flexibleSyncConfiguration()
                cats.objectTypes = [Cat.self]
                cats.fileURL = cats.fileURL!.deletingLastPathComponent().appendingPathComponent("cats.realm")
                let catError = #expect(throws: Realm.Error.self) { _ = try Realm(configuration: cats) }
                #expect(catError?.localizedDescription
                    == "There must be a primary key property named '_id' on a synchronized Realm but none was found for type 'Cat'")
            }
        }
    }

    @Test func logOutStopsTheSession() async throws {
        try await withTestServer(configuration: try seedServerApp()) { server in
            try await withClientApp(server) { app in
                let user = try await app.login(credentials: .anonymous)
                let config = seedConfiguration(user, subscribed: false)
                let realm = try await Realm(configuration: config)
                let session = try #require(realm.syncSession)
                try await eventually { session.connectionState == .connected }
                try await user.logOut()
                #expect(session.connectionState == .disconnected)
                #expect(session.state == .inactive)
                #expect(session.parentUser()?.id == user.id)
            }
        }
    }

    @Test func downloadedChangesNotifyLikeLocalWrites() async throws {
        try await withTestServer(configuration: try seedServerApp()) { server in
            try await withClientApp(server) { app in
                let user = try await app.login(credentials: .anonymous)
                let config = seedConfiguration(user)
                let writer = try await Realm(configuration: config, downloadBeforeOpen: .always)
                var readerConfig = config
                readerConfig.fileURL = config.fileURL!.deletingLastPathComponent().appendingPathComponent("reader.realm")
                _ = try await Realm(configuration: readerConfig, downloadBeforeOpen: .always)
                // The reader observes on its own queue; downloads arrive as ordinary change notifications.
                let queue = DispatchQueue(label: "reader")
                let changes = NotificationLog()
                let token: NotificationToken = try queue.sync {
                    let reader = try Realm(configuration: readerConfig, queue: queue)
                    return reader.objects(Item.self).observe { change in
                        switch change {
                        case .initial(let items): changes.append("initial \(items.count)")
                        case .update(let items, let deletions, let insertions, let modifications):
                            changes.append("update \(items.count) -\(deletions) +\(insertions) ~\(modifications)")
                        case .error(let error): changes.append("error \(error)")
                        }
                    }
                }
                try await eventually { changes.entries == ["initial 0"] }
                let item = Item()
                item.ownerId = user.id
                item.itemName = "new"
                item.complexity = 1
                try writer.write { writer.add(item) }
                try await eventually("the insertion is notified") { changes.entries.contains("update 1 -[] +[0] ~[]") }
                try writer.write { item.itemName = "renamed" }
                try await eventually("the modification is notified") { changes.entries.contains("update 1 -[] +[] ~[0]") }
                try writer.write { writer.delete(item) }
                try await eventually("the deletion is notified") { changes.entries.contains("update 0 -[0] +[] ~[]") }
                queue.sync { token.invalidate() }
            }
        }
    }
}

final class NotificationLog: @unchecked Sendable {
    private let lock = NSLock()
    private var _entries: [String] = []
    var entries: [String] { lock.withLock { _entries } }
    func append(_ entry: String) { lock.withLock { _entries.append(entry) } }
}

/// States an observation reported, thread-safely.
final class ObservedStates: @unchecked Sendable {  // behind `lock`
    private let lock = NSLock()
    private var _values: [SyncSession.ConnectionState] = []
    private var _stateChanges: [String] = []
    var values: [SyncSession.ConnectionState] { lock.withLock { _values } }
    var stateChanges: [String] { lock.withLock { _stateChanges } }
    func append(_ state: SyncSession.ConnectionState) { lock.withLock { _values.append(state) } }
    func appendState(_ old: SyncSession.State, _ new: SyncSession.State) { lock.withLock { _stateChanges.append("\(old)→\(new)") } }
}

/// Progress reports, thread-safely.
final class ObservedProgress: @unchecked Sendable {  // behind `lock`
    private let lock = NSLock()
    private var _all: [SyncSession.Progress] = []
    var all: [SyncSession.Progress] { lock.withLock { _all } }
    func append(_ progress: SyncSession.Progress) { lock.withLock { _all.append(progress) } }
}
