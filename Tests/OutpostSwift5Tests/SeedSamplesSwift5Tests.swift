import Foundation
import Outpost
import OutpostTesting
import Testing

// The code samples of the two seed pages ("Write data to a synced realm", "Event Library"), as the pages give them,
// compiled in Swift 5 language mode (this target's setting; OutpostTests and OutpostSyncTests build them in Swift 6
// mode and run the synced ones against real servers). The local part runs here too.

class Item: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var ownerId: String
    @Persisted var itemName: String
    @Persisted var complexity: Int
}

// To customize event serialization, your object must
// conform to the `CustomEventRepresentable` protocol.
class Person: Object, CustomEventRepresentable {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var name: String
    @Persisted var employeeId: Int
    @Persisted var userId: String?

    convenience init(name: String, employeeId: Int) {
        self.init()
        self.name = name
        self.employeeId = employeeId
    }

    // To conform to `CustomEventRepresentable`, your object
    // must implement a `customEventRepresentation` func that
    // defines your customized event serialization
    func customEventRepresentation() -> String {
        if employeeId == 0 {
            return "invalid json"
        }
        return "{\"int\": \(employeeId)}"
    }
}

/// "Write data to a synced realm": open with a subscription.
func openSyncedRealm(YOUR_APP_ID_HERE: String) async {
    let app = App(id: YOUR_APP_ID_HERE)
    do {
        let user = try await app.login(credentials: Credentials.anonymous)
        do {
            var flexSyncConfig = user.flexibleSyncConfiguration()
            flexSyncConfig.objectTypes = [Item.self]
            let realm = try await Realm(configuration: flexSyncConfig)
            let subscriptions = realm.subscriptions
            try await subscriptions.update {
                subscriptions.append(
                    QuerySubscription<Item>(name: "simple-items") {
                        $0.complexity <= 4
                    })
            }
            print("Successfully opened realm: \(realm)")
        } catch {
            print("Failed to open realm: \(error.localizedDescription)")
            // handle error
        }
    } catch {
        fatalError("Login failed: \(error.localizedDescription)")
    }
}

/// "Write data to a synced realm": the three writes.
func writeItems(realm: Realm, user: User) {
    // This write falls within the subscription query and complies
    // with the Device Sync permissions, so this write should succeed.
    do {
        let learnRealm = Item()
        learnRealm.ownerId = user.id
        learnRealm.itemName = "Learn Realm CRUD stuff"
        learnRealm.complexity = 3
        try realm.write {
            realm.add(learnRealm)
        }
    } catch {
        print("Failed to write to realm: \(error.localizedDescription)")
    }
    do {
        let fixTheBug = Item()
        fixTheBug.ownerId = user.id
        fixTheBug.itemName = "Fix the bug with the failing method"
        // The complexity of this item is `7`. This is outside the bounds
        // of the subscription query, so this write triggers a compensating write.
        fixTheBug.complexity = 7
        try realm.write {
            realm.add(fixTheBug)
        }
    } catch {
        print("Failed to write to realm: \(error.localizedDescription)")
    }
    do {
        let itemWithWrongOwner = Item()
        // The `ownerId` of this item does not match the `user.id` of the logged-in
        // user. The user does not have permissions to make this write, so
        // it triggers a compensating write.
        itemWithWrongOwner.ownerId = "This string does not match the user.id"
        itemWithWrongOwner.itemName = "Write code that generates a permission error"
        itemWithWrongOwner.complexity = 1
        try realm.write {
            realm.add(itemWithWrongOwner)
        }
    } catch {
        print("Failed to write to realm: \(error.localizedDescription)")
    }
}

/// "Write data to a synced realm": the compensating-write error handler.
func handleCompensatingWrites(myApp: App) {
    myApp.syncManager.errorHandler = { syncError, session in
        if let thisError = syncError as? SyncError {
            switch thisError.code {
            // ... additional SyncError.code cases ...
            case .writeRejected:
                if let compensatingWriteErrorInfo = thisError.compensatingWriteInfo {
                    for anError in compensatingWriteErrorInfo {
                        print("A write was rejected with a compensating write error")
                        print("The write to object type: \(anError.objectType)")
                        print("With primary key of: \(anError.primaryKey)")
                        print("Was rejected because: \(anError.reason)")
                    }
                }
            default:
                break
            }
        }
    }
}

/// "Event Library": enable event recording with a separate sync user.
func enableEventRecording(app: App, user: User) async throws -> Realm.Configuration {
    let eventSyncUser = try await app.login(credentials: Credentials.anonymous)
    var config = user.configuration(partitionValue: "Some partition value")
    config.eventConfiguration = EventConfiguration(metadata: ["username": "Jason Bourne"], syncUser: eventSyncUser,
                                                   partitionPrefix: "event-")
    return config
}

func updateUsername() {}

/// "Event Library": scopes, metadata, reads and writes, cancel, `isActive`, commit with a completion.
func recordEvents(user: User) {
    var config = user.configuration(partitionValue: "Some partition value")
    config.eventConfiguration = EventConfiguration(metadata: ["username": "Jason Bourne"], syncUser: user,
                                                   partitionPrefix: "event-")
    let realm = try! Realm(configuration: config)
    let events = realm.events!
    let updateUsernameScope = events.beginScope(activity: "Update username")
    // Call some function that updates the user's username
    updateUsername()
    updateUsernameScope.commit()
    // Update the metadata you supplied with the initial EventConfiguration
    events.updateMetadata(["username": "John Michael Kane"])

    // Read event
    let readEventScope = events.beginScope(activity: "read object")
    let person = realm.objects(Person.self).first!
    print("Found this person: \(person.name)")
    readEventScope.commit()
    let mutateEventScope = events.beginScope(activity: "mutate object")
    // Write event
    try! realm.write {
        // Change name from "Anthony" to "Tony"
        person.name = "Tony"
    }
    mutateEventScope.commit()

    let eventScope = events.beginScope(activity: "read object")
    let person1 = realm.objects(Person.self).first!
    print("Found this person: \(person1.name)")
    eventScope.cancel()

    let readPersonScope = events.beginScope(activity: "read object")
    let person2 = realm.objects(Person.self).first!
    print("Found this person: \(person2.name)")
    if readPersonScope.isActive {
        print("The readPersonScope is active")
    } else {
        print("The readPersonScope is no longer active")
    }
    readPersonScope.cancel()

    let mutateScope = events.beginScope(activity: "mutate object with completion")
    // Write event
    try! realm.write {
        // Add a userId
        person.userId = "tony.stark@starkindustries.com"
    }
    mutateScope.commit(completion: { error in
        if let error = error {
            print("Error recording write event: \(error.localizedDescription)")
            return
        }
        print("Successfully recorded a write event")
    })
}

/// The seed pages' samples build in Swift 5 language mode; their local part (the models, writes and the
/// subscription's query) runs here on a local file.
@Suite struct SeedSamplesSwift5Tests {
    @Test func theLocalPartRunsInSwift5Mode() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration(objectTypes: [Item.self, Person.self]))
        try realm.write { realm.add(Person(name: "Anthony", employeeId: 2)) }
        for (name, complexity) in [("Learn Realm CRUD stuff", 3), ("Fix the bug with the failing method", 7)] {
            let item = Item()
            item.ownerId = "user"
            item.itemName = name
            item.complexity = complexity
            try realm.write { realm.add(item) }
        }
        #expect(realm.objects(Item.self).where { $0.complexity <= 4 }.map(\.itemName) == ["Learn Realm CRUD stuff"])
        #expect(realm.objects(Person.self).first?.customEventRepresentation() == "{\"int\": 2}")
        // The synced samples are functions here (they need a server); they must at least be there to call.
        let samples: [Any] = [openSyncedRealm, writeItems, handleCompensatingWrites, enableEventRecording, recordEvents]
        #expect(samples.count == 5)
    }
}
