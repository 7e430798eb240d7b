import Foundation
import Testing
@testable import Outpost

@Suite(.timeLimit(.minutes(3))) struct EventScopeTests {
    private func realmWithPeople(_ events: EventConfiguration = EventConfiguration()) async throws -> Realm {
        let realm = try await Realm(configuration: try localEventConfiguration(events, types: [EvPerson.self]))
        try realm.write {
            for (id, name) in [(1, "A"), (2, "B"), (3, "C")] {
                realm.add(EvPerson(id, name, id))
            }
        }
        return realm
    }

    private func reads(_ realm: Realm) throws -> [String] {
        try storedEvents(realm).map { "\($0.activity):\($0.data ?? "")" }
    }

    @Test func cancelStoresNothingAndIsActiveFollowsTheScope() async throws {
        let realm = try await realmWithPeople()
        let scope = realm.events!.beginScope(activity: "cancelled")
        #expect(scope.isActive)
        _ = realm.objects(EvPerson.self).first
        try realm.write { realm.objects(EvPerson.self).first!.age = 9 }
        scope.cancel()
        #expect(!scope.isActive)
        let empty = realm.events!.beginScope(activity: "empty")
        try await empty.commit()  // nothing recorded: succeeds, stores nothing
        #expect(!empty.isActive)
        #expect(try storedEvents(realm).isEmpty)
        // Reads outside any scope are not recorded.
        _ = realm.objects(EvPerson.self).first
        try await realm.events!.beginScope(activity: "later").commit()
        #expect(try storedEvents(realm).isEmpty)
    }

    @Test func queryReadsRecordEveryMatchAndObjectReadsCombine() async throws {
        let realm = try await realmWithPeople()
        let scope = realm.events!.beginScope(activity: "reads")
        _ = realm.objects(EvPerson.self).filter("name != 'B'").first  // query: A and C
        _ = realm.object(ofType: EvPerson.self, forPrimaryKey: 3)  // joins the query (same class and version)
        try realm.write { realm.object(ofType: EvPerson.self, forPrimaryKey: 2)!.age = 20 }  // a read, then a write
        _ = realm.object(ofType: EvPerson.self, forPrimaryKey: 1)
        _ = realm.object(ofType: EvPerson.self, forPrimaryKey: 1)  // consecutive duplicate: dropped
        _ = realm.object(ofType: EvPerson.self, forPrimaryKey: 2)
        _ = realm.objects(EvPerson.self).filter("name == 'Z'").first  // no match: no event
        try await scope.commit()
        let a = #"{"_id":1,"age":1,"flag":false,"name":"A"}"#
        let b = #"{"_id":2,"age":2,"flag":false,"name":"B"}"#
        let b20 = #"{"_id":2,"age":20,"flag":false,"name":"B"}"#
        let c = #"{"_id":3,"age":3,"flag":false,"name":"C"}"#
        #expect(try reads(realm) == [
            // The read inside the write is at the pre-transaction version, so it joins the query too.
            #"reads:{"type":"EvPerson","value":[\#(a),\#(b),\#(c)]}"#,
            #"reads:{"EvPerson":{"modifications":[{"newValue":{"age":20},"oldValue":\#(b)}]}}"#,
            #"reads:{"type":"EvPerson","value":[\#(a)]}"#,
            #"reads:{"type":"EvPerson","value":[\#(b20)]}"#,
        ])
    }

    /// Iterating works on a snapshot, recorded as one query read of it; a query read of the same class at the same
    /// version joins the previous one; after a write (a new version) the next snapshot is its own read.
    @Test func iteratingResultsRecordsTheSnapshotAsAQueryRead() async throws {
        let realm = try await realmWithPeople()
        let scope = realm.events!.beginScope(activity: "iterate")
        var names: [String] = []
        for p in realm.objects(EvPerson.self).filter("age >= 2") { names.append(p.name) }  // a query read of B, C
        for p in realm.objects(EvPerson.self) { names.append(p.name) }  // A, B, C: joins that query
        try realm.write { realm.add(EvPerson(4, "D", 4)) }
        for p in realm.objects(EvPerson.self) where p._id >= 3 { names.append(p.name) }  // A, B, C, D at a new version
        try await scope.commit()
        #expect(names == ["B", "C", "A", "B", "C", "C", "D"])
        let a = #"{"_id":1,"age":1,"flag":false,"name":"A"}"#
        let b = #"{"_id":2,"age":2,"flag":false,"name":"B"}"#
        let c = #"{"_id":3,"age":3,"flag":false,"name":"C"}"#
        let d = #"{"_id":4,"age":4,"flag":false,"name":"D"}"#
        #expect(try reads(realm) == [
            #"iterate:{"type":"EvPerson","value":[\#(a),\#(b),\#(c)]}"#,
            #"iterate:{"EvPerson":{"insertions":[\#(d)]}}"#,
            #"iterate:{"type":"EvPerson","value":[\#(a),\#(b),\#(c),\#(d)]}"#,
        ])
    }

    @Test func overlappingScopesEachRecordAndPersistInCommitOrder() async throws {
        let realm = try await realmWithPeople()
        let events = realm.events!
        let s1 = events.beginScope(activity: "s1")
        _ = realm.object(ofType: EvPerson.self, forPrimaryKey: 1)
        let s2 = events.beginScope(activity: "s2")
        _ = realm.object(ofType: EvPerson.self, forPrimaryKey: 2)
        try await s1.commit()
        _ = realm.object(ofType: EvPerson.self, forPrimaryKey: 3)
        try await s2.commit()
        let ids = try storedEvents(realm).map { event -> String in
            let id = event.data!.split(separator: "\"_id\":")[1].prefix(1)
            return "\(event.activity):o\(id)"
        }
        #expect(ids == ["s1:o1", "s1:o2", "s2:o2", "s2:o3"])
    }

    @Test func cancellingOneOfTwoScopesKeepsTheOther() async throws {
        let realm = try await realmWithPeople()
        let s1 = realm.events!.beginScope(activity: "kept")
        let s2 = realm.events!.beginScope(activity: "dropped")
        _ = realm.object(ofType: EvPerson.self, forPrimaryKey: 1)
        s2.cancel()
        try await s1.commit()
        #expect(try storedEvents(realm).map(\.activity) == ["kept"])
    }

    @Test func aDeallocatedActiveScopeIsCancelled() async throws {
        let lines = LockedLines()
        let realm = try await realmWithPeople(EventConfiguration(logger: { _, line in lines.append(line) }))
        do {
            let scope = realm.events!.beginScope(activity: "forgotten")
            _ = realm.object(ofType: EvPerson.self, forPrimaryKey: 1)
            #expect(scope.isActive)
        }
        try await realm.events!.recordEvent(activity: "marker")
        #expect(try storedEvents(realm).map(\.activity) == ["marker"])
        #expect(lines.all.contains("Events: Deallocating an active event scope. The scope's events will be discarded."))
        #expect(lines.all.contains { $0.contains("Beginning event scope") && $0.contains("'forgotten'") })
    }

    @Test func eventsAreSharedByEveryInstanceOfTheFile() async throws {
        let realm = try await realmWithPeople()
        let scope = realm.events!.beginScope(activity: "threads")
        let config = realm.configuration
        let done = DispatchSemaphore(value: 0)
        Thread {
            let other = try! Realm(configuration: config)
            _ = other.object(ofType: EvPerson.self, forPrimaryKey: 2)
            done.signal()
        }.start()
        done.wait()
        try await scope.commit()
        #expect(try storedEvents(realm).count == 1)
    }

    @Test func shardsRotatePastTheSizeLimitAndCommitsAreDurable() async throws {
        var events = EventConfiguration()
        events.maxShardSize = 16 * 1024
        let realm = try await realmWithPeople(events)
        for i in 0..<40 {
            try await realm.events!.recordEvent(activity: "custom \(i)", data: String(repeating: "x", count: 2000))
        }
        let store = realm.events!.context.store
        #expect(store.shardFiles.count > 1)
        // Every event is readable from the shard files by a fresh connection, in order, exactly once.
        let stored = try storedEvents(realm)
        #expect(stored.map(\.activity) == (0..<40).map { "custom \($0)" },
                "stored: \(stored.map { "\($0.id) \($0.activity)" }), shards: \(store.shardFiles.map(\.lastPathComponent))")
        #expect(store.shardFiles.allSatisfy { store.partitionValue(ofShard: $0).hasPrefix("events-") })
    }
}

/// Log lines collected from any thread.
final class LockedLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    var all: [String] { lock.withLock { lines } }
    func append(_ line: String) { lock.withLock { lines.append(line) } }
}
