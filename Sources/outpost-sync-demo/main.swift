import Foundation
import Logging
import Outpost
import OutpostServer
import ServiceLifecycle

// The seed page "Write data to a synced realm", end to end: an embedded outpost-server (SQLite, temporary data
// directory, the page's `owner-read-write` role, `complexity` and `ownerId` queryable), two users, and the page's
// three writes. The legal write reaches the user's second device; the complexity-7 and wrong-owner writes come back
// as compensating writes with their reasons. The other user sees none of it. Last, the Event Library records a read
// scope, a write scope and a custom event, and the demo fetches them from the server's AuditEvent collection.
//
//     swift run outpost-sync-demo

final class Item: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var ownerId: String
    @Persisted var itemName: String
    @Persisted var complexity: Int
}

let appJSON = """
    {
      "app_id": "seed-demo",
      "auth": { "anonymous": { "enabled": true }, "email_password": { "enabled": true, "auto_confirm": true } },
      "sync": { "mode": "flexible", "queryable_fields_names": ["_id", "complexity", "ownerId"], "development_mode_enabled": true },
      "data_api": { "enabled": true },
      "rules": { "Item": { "roles": [ { "name": "owner-read-write", "apply_when": {},
        "document_filters": { "read": { "ownerId": "%%user.id" }, "write": { "ownerId": "%%user.id" } },
        "read": true, "write": true } ] },
        "AuditEvent": { "roles": [ { "name": "read-events", "apply_when": {}, "read": true, "write": false } ] } }
    }
    """

/// Starts the embedded server, runs `body` with its base URL, then shuts the server down.
func withEmbeddedServer(_ body: @escaping @Sendable (String) async throws -> Void) async throws {
    let dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("outpost-sync-demo-\(getpid())")
    try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dataDirectory) }
    var logger = Logger(label: "outpost-server")
    logger.logLevel = .warning
    let (ports, portContinuation) = AsyncStream<Int>.makeStream()
    let server = try OutpostServerApplication(
        configuration: OutpostServerConfiguration(host: "127.0.0.1", port: 0, dataDirectory: dataDirectory),
        app: try AppDefinition(jsonText: appJSON),
        storage: try SQLiteStorage(path: dataDirectory.appendingPathComponent("outpost.sqlite").path), logger: logger
    ) { info in portContinuation.yield(info.port) }
    let group = ServiceGroup(configuration: .init(services: [server], logger: logger))
    try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { return }
        print("Embedded outpost-server on http://127.0.0.1:\(port), data in \(dataDirectory.path)")
        do {
            try await body("http://127.0.0.1:\(port)")
        } catch {
            await group.triggerGracefulShutdown()
            throw error
        }
        await group.triggerGracefulShutdown()
        try await tasks.waitForAll()
    }
}

try await withEmbeddedServer { baseURL in
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("outpost-sync-demo-client-\(getpid())")
    defer { try? FileManager.default.removeItem(at: root) }
    let app = App(id: "seed-demo", configuration: AppConfiguration(baseURL: baseURL, rootDirectory: root))
    app.syncManager.logLevel = .info
    app.syncManager.logger = { _, line in print("  [client log] \(line)") }
    app.syncManager.errorHandler = { syncError, session in
        if let thisError = syncError as? SyncError {
            switch thisError.code {
            case .writeRejected:
                if let compensatingWriteErrorInfo = thisError.compensatingWriteInfo {
                    for anError in compensatingWriteErrorInfo {
                        print("A write was rejected with a compensating write error")
                        print("The write to object type: \(String(describing: anError.objectType))")
                        print("With primary key of: \(anError.primaryKey)")
                        print("Was rejected because: \(String(describing: anError.reason))")
                    }
                }
            default:
                print("Sync error: \(thisError.localizedDescription)")
            }
        }
    }

    let user = try await app.login(credentials: Credentials.anonymous)
    print("User 1 logged in: \(user.id)")
    var flexSyncConfig = user.flexibleSyncConfiguration()
    flexSyncConfig.objectTypes = [Item.self]
    // The Event Library (step 5): events are recorded only inside scopes.
    flexSyncConfig.eventConfiguration = EventConfiguration(metadata: ["username": "Jason Bourne"])
    let realm = try await Realm(configuration: flexSyncConfig)
    let subscriptions = realm.subscriptions
    try await subscriptions.update {
        subscriptions.append(QuerySubscription<Item>(name: "simple-items") { $0.complexity <= 4 })
    }
    print("Successfully opened realm: \(realm.configuration.fileURL!.lastPathComponent), subscription 'simple-items' complete")

    // User 1's second device: the same user, another file.
    var secondConfig = flexSyncConfig
    secondConfig.fileURL = root.appendingPathComponent("second-device.realm")
    secondConfig.syncConfiguration?.initialSubscriptions = { subs in
        subs.append(QuerySubscription<Item>(name: "simple-items") { $0.complexity <= 4 })
    }
    let secondDevice = try await Realm(configuration: secondConfig, downloadBeforeOpen: .always)

    print("\n1. A write inside the subscription and the permissions")
    let learnRealm = Item()
    learnRealm.ownerId = user.id
    learnRealm.itemName = "Learn Realm CRUD stuff"
    learnRealm.complexity = 3
    try realm.write { realm.add(learnRealm) }
    try await realm.syncSession!.wait(for: .upload)
    try await secondDevice.syncSession!.wait(for: .download)
    secondDevice.refresh()
    print("Second device now has: \(secondDevice.objects(Item.self).map { "\($0.itemName) (complexity \($0.complexity))" })")

    print("\n2. A write outside the subscription (complexity 7)")
    let fixTheBug = Item()
    fixTheBug.ownerId = user.id
    fixTheBug.itemName = "Fix the bug with the failing method"
    fixTheBug.complexity = 7
    try realm.write { realm.add(fixTheBug) }
    let fixVersion = realm.lastCommittedSyncTransaction!
    _ = try await realm.syncSession!.verdict(forTransaction: fixVersion)
    realm.refresh()
    print("Items on device 1 after the revert: \(realm.objects(Item.self).count)")

    print("\n3. A write that the permissions refuse (another ownerId)")
    let itemWithWrongOwner = Item()
    itemWithWrongOwner.ownerId = "This string does not match the user.id"
    itemWithWrongOwner.itemName = "Write code that generates a permission error"
    itemWithWrongOwner.complexity = 1
    try realm.write { realm.add(itemWithWrongOwner) }
    _ = try await realm.syncSession!.verdict(forTransaction: realm.lastCommittedSyncTransaction!)
    realm.refresh()
    print("Items on device 1 after the revert: \(realm.objects(Item.self).count)")

    print("\n4. Another user sees none of user 1's items")
    // Logging in anonymously again would return the same anonymous user (as in Realm): register a second one.
    try await app.emailPasswordAuth.registerUser(email: "second@example.com", password: "password123")
    let other = try await app.login(credentials: .emailPassword(email: "second@example.com", password: "password123"))
    var otherConfig = other.flexibleSyncConfiguration(initialSubscriptions: { subs in
        subs.append(QuerySubscription<Item>(name: "simple-items") { $0.complexity <= 4 })
    })
    otherConfig.objectTypes = [Item.self]
    let otherRealm = try await Realm(configuration: otherConfig, downloadBeforeOpen: .always)
    print("User 2 (\(other.id)) has \(otherRealm.objects(Item.self).count) item(s)")

    print("\n5. Events: a read scope, a write scope and a custom event, stored in the server's AuditEvent collection")
    let events = realm.events!
    let readScope = events.beginScope(activity: "read items")
    let simpleItems = realm.objects(Item.self).where { $0.complexity <= 4 }
    print("Found this item: \(simpleItems.first!.itemName)")
    try await readScope.commit()
    let writeScope = events.beginScope(activity: "rename item")
    try realm.write { simpleItems.first!.itemName = "Learn Realm CRUD stuff, then events" }
    try await writeScope.commit()
    try await events.recordEvent(activity: "demo", eventType: "custom event", data: "the demo is almost done")
    let auditEvents = user.mongoClient("mongodb-atlas").database(named: "outpost").collection(withName: "AuditEvent")
    var stored: [Document] = []
    for _ in 0..<200 where stored.count < 3 {  // the upload runs in the background
        stored = try await auditEvents.find(filter: [:])
        if stored.count < 3 { try await Task.sleep(for: .milliseconds(50)) }
    }
    print("The server's AuditEvent collection holds \(stored.count) event(s):")
    for event in stored.sorted(by: { ($0["_id"]??.objectIdValue?.stringValue ?? "") < ($1["_id"]??.objectIdValue?.stringValue ?? "") }) {
        let field = { (name: String) in event[name]??.stringValue ?? "null" }
        print("  event: \(field("event")), activity: \(field("activity")), username: \(field("username"))")
        print("    data: \(field("data"))")
    }

    for u in app.allUsers.values where u.isLoggedIn { try await u.logOut() }
    print("\nDone.")
}
