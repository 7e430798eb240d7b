import Foundation
import OutpostServer
import OutpostServerTesting
import Testing
@testable import Outpost

/// The seed page's samples, run synchronously as an app would (in an async context `scope.commit()` means the
/// async overload).
private func runSeedSamples(config: Realm.Configuration, updateUsername: () -> Void) {
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
    precondition(!readPersonScope.isActive)

    let mutateScope = events.beginScope(activity: "mutate object with completion")
    // Write event
    try! realm.write {
        // Add a userId
        person.userId = "tony.stark@starkindustries.com"
    }
    let done = DispatchSemaphore(value: 0)
    mutateScope.commit(completion: { error in
        if let error = error {
            print("Error recording write event: \(error.localizedDescription)")
            done.signal()
            return
        }
        print("Successfully recorded a write event")
        done.signal()
    })
    done.wait()

    events.recordEvent(activity: "event", eventType: "custom event")
}

@Suite(.timeLimit(.minutes(3))) struct EventLibraryTests {
    /// The store's timestamps (UTC, milliseconds) read back to the same millisecond; other text is not a timestamp.
    @Test func storedTimestampsReadBackToTheMillisecond() {
        for seconds in [0.0, 1.678, 1_704_164_645.678, 1_900_000_000.999, -1.5, 951_782_400.001] {
            let text = EventSerializer.timestamp(Date(timeIntervalSince1970: seconds))
            let back = EventSerializer.date(fromTimestamp: text)
            #expect(back.map(EventSerializer.timestamp) == text)
            #expect(abs((back?.timeIntervalSince1970 ?? 0) - seconds) < 0.001, "\(text)")
        }
        #expect(EventSerializer.date(fromTimestamp: "2000-02-29T00:00:00.001Z")?.timeIntervalSince1970 == 951_782_400.001)
        #expect(EventSerializer.date(fromTimestamp: "2024-13-01T00:00:00.000Z") == nil)
        #expect(EventSerializer.date(fromTimestamp: "2024-01-0xT00:00:00.000Z") == nil)
        #expect(EventSerializer.date(fromTimestamp: "nonsense") == nil)
    }

    @Test func seedSamplesRecordOnAPartitionSyncedRealm() async throws {
        try await withTestServer(configuration: try partitionServerApp(appId: "events-pbs")) { server in
            try await withClientApp(server) { app in
                let user = try await app.login(credentials: .anonymous)
                let eventSyncUser = try await app.login(credentials: Credentials.anonymous)
                var config = user.configuration(partitionValue: "Some partition value")
                config.eventConfiguration = EventConfiguration()
                #expect(config.eventConfiguration?.partitionPrefix == "events")
                config.eventConfiguration = EventConfiguration(metadata: ["username": "Jason Bourne"],
                                                               syncUser: eventSyncUser, partitionPrefix: "event-")
                config.eventConfiguration = EventConfiguration(metadata: ["username": "Jason Bourne"], syncUser: user,
                                                               partitionPrefix: "event-")
                config.objectTypes = [Person.self]
                let setup = try await Realm(configuration: config)
                try setup.write { setup.add(Person(name: "Anthony", employeeId: 2)) }
                runSeedSamples(config: config) {}
                let realm = try await Realm(configuration: config)
                // The events upload as the user (a partition-based app records `_partition` too); read them there.
                try await eventuallyAsync { try await serverEvents(server).count == 4 }
                let stored = try await serverEvents(server)
                #expect(stored.map(\.activity) == ["read object", "mutate object", "mutate object with completion", "event"])
                let byActivity = Dictionary(grouping: stored, by: \.activity)
                #expect(byActivity["read object"]?.map(\.data) == [#"{"type":"Person","value":[{"int":2}]}"#])
                #expect(byActivity["read object"]?.first?.event == "read")
                #expect(byActivity["mutate object"]?.map(\.data)
                    == [#"{"Person":{"modifications":[{"newValue":{},"oldValue":{"int":2}}]}}"#])
                #expect(byActivity["mutate object"]?.first?.event == "write")
                #expect(byActivity["mutate object"]?.first?.metadata["username"] == "John Michael Kane")
                // The app's partition key holds the shard's partition value, `<prefix>-<ObjectId>` ("event--…").
                #expect(stored.allSatisfy { $0.metadata["_partition"]?.hasPrefix("event--") == true && $0.metadata["_partition"]?.count == 31 })
                #expect(byActivity["event"]?.first?.event == "custom event")
                #expect(byActivity["event"]?.first?.data == nil)
                // The store lives under the App's root: realm-audit/<app>/<user>/<prefix>.
                let directory = realm.events!.context.store.directory.path
                #expect(directory.hasSuffix("/realm-audit/events-pbs/\(user.id)/event-"))
            }
        }
    }

    @Test func seedScopeStoresWithTheMetadataOfItsBeginning() async throws {
        var config = try localEventConfiguration(EventConfiguration(metadata: ["username": "Jason Bourne"]),
                                                 types: [EvPerson.self])
        config.eventConfiguration?.partitionPrefix = "event-"
        let realm = try await Realm(configuration: config)
        let events = try #require(realm.events)
        let scope = events.beginScope(activity: "Update username")
        try realm.write { realm.add(EvPerson(1, "A", 3)) }
        events.updateMetadata(["username": "John Michael Kane"])
        try await scope.commit()
        try await events.recordEvent(activity: "after", eventType: "custom", data: "not valid json")
        events.updateMetadata([:])
        try await events.recordEvent(activity: "cleared")
        let stored = try storedEvents(realm)
        #expect(stored.map(\.metadata) == [["username": "Jason Bourne"], ["username": "John Michael Kane"], [:]])
        #expect(stored[1].data == "not valid json")
        #expect(stored[1].event == "custom")
        #expect(stored[2].event == nil)
    }

    @Test func invalidConfigurationsThrowRealmsMessages() throws {
        let cases: [(EventConfiguration, String)] = [
            (EventConfiguration(partitionPrefix: ""), "Audit partition prefix must not be empty"),
            (EventConfiguration(partitionPrefix: "/audit"),
             "Invalid audit partition prefix '/audit': prefix must not contain slashes"),
            (EventConfiguration(partitionPrefix: "a\\b"),
             "Invalid audit partition prefix 'a\\b': prefix must not contain slashes"),
            (EventConfiguration(metadata: ["": "x"]), "Invalid audit metadata key '': keys must be 1-63 characters long"),
            (EventConfiguration(metadata: [String(repeating: "k", count: 64): "x"]),
             "Invalid audit metadata key '\(String(repeating: "k", count: 64))': keys must be 1-63 characters long"),
            (EventConfiguration(metadata: ["activity": "x"]),
             "Invalid audit metadata key 'activity': metadata keys cannot overlap with the audit event properties"),
            ({ var c = EventConfiguration(); c.maxShardSize = 0; return c }(),
             "Invalid event shard size limit 0: maxShardSize must be a positive number of bytes"),
        ]
        for (events, message) in cases {
            let config = try localEventConfiguration(events, types: [EvPerson.self])
            #expect {
                _ = try Realm(configuration: config)
            } throws: { error in
                (error as? Realm.Error)?.localizedDescription == message
            }
        }
        let ok = try localEventConfiguration(EventConfiguration(metadata: [String(repeating: "k", count: 63): "x"]),
                                             types: [EvPerson.self])
        #expect(try Realm(configuration: ok).events != nil)
        var plain = ok
        plain.fileURL = ok.fileURL!.deletingLastPathComponent().appendingPathComponent("plain.realm")
        plain.eventConfiguration = nil
        #expect(try Realm(configuration: plain).events == nil)
    }
}
