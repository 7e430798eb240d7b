import Foundation
@_spi(Testing) @testable import Outpost
import OutpostTesting
import Testing

/// `Realm`'s API beyond basic CRUD: configurations, aggregates, collections, links and deletes.
@Suite struct RealmAPITests {
    func makeOwners(_ realm: Realm) throws {
        try realm.write {
            for (id, name, age) in [(1, "Ann", 30), (2, "Bob", 40), (3, "Cy", 50)] {
                realm.create(Owner.self, value: ["id": id, "name": name, "age": age, "weight": Double(age) + 0.5,
                                                 "balance": Decimal128(id * 10)])
            }
        }
    }

    /// `Realm.Error` and `SyncError` bridge to `NSError` with Realm's domains and codes, and match in `catch` by code.
    @Test func errorsBridgeWithRealmsDomainsAndMatchByCode() {
        let realmError = Realm.Error(.subscriptionFailed, "bad query", fileURL: URL(fileURLWithPath: "/tmp/x.realm"))
        let bridged = realmError as NSError
        #expect(bridged.domain == "io.realm")
        #expect(bridged.code == 18)
        #expect(bridged.localizedDescription == "bad query")
        #expect(bridged.userInfo[NSFilePathErrorKey] as? String == "/tmp/x.realm")
        #expect((Realm.Error(.noSubscriptionForWrite, "m") as NSError).code == 22)

        let syncError: Error = SyncError(.clientResetError, "reset")
        #expect((syncError as NSError).domain == "io.realm.sync")
        #expect((syncError as NSError).code == 7)
        do {
            throw syncError
        } catch SyncError.clientResetError {
            // Matched by code, as with Realm's bridged error.
        } catch {
            Issue.record("not matched by code: \(error)")
        }
        #expect(!(SyncError.writeRejected ~= syncError))
        #expect(!(SyncError.clientResetError ~= realmError))
    }

    @Test func inMemoryRealmsShareDataWhileOpenAndVanishAfter() throws {
        let id = "mem-\(UUID().uuidString)"
        do {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: id))
            try realm.write { realm.create(Owner.self, value: ["id": 1]) }
            let again = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: id))
            #expect(again.objects(Owner.self).count == 1)
            #expect(realm.configuration.fileURL == nil)
        }
        let fresh = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: id))
        #expect(fresh.objects(Owner.self).isEmpty)
    }

    /// The test-support reset (Realm's tests reset their caches after each test): in-memory Realms opened after it start
    /// empty while an earlier one is still open, and the earlier one keeps its data. In a process of its own, since
    /// the reset concerns every in-memory Realm of the process.
    @Test func inMemoryRealmsStartEmptyAfterTheTestReset() async {
        await #expect(processExitsWith: .success) {
            let config = Realm.Configuration(inMemoryIdentifier: "reset")
            let kept = try! Realm(configuration: config)
            try! kept.write { kept.create(Owner.self, value: ["id": 1]) }
            Realm._startNewInMemoryRealms()
            let fresh = try! Realm(configuration: config)
            precondition(fresh.objects(Owner.self).isEmpty, "the new in-memory Realm is not empty")
            try! fresh.write { fresh.create(Owner.self, value: ["id": 2]) }
            precondition(kept.objects(Owner.self).map(\.id) == [1], "the open one lost its data")
        }
    }

    /// Observing and writing from a queue keep no instance of an in-memory Realm alive once they are done.
    @Test func inMemoryRealmsVanishAfterObservingAndQueueWrites() throws {
        let id = "mem-\(UUID().uuidString)"
        let configuration = Realm.Configuration(inMemoryIdentifier: id)
        let queue = DispatchQueue(label: "writer")
        do {
            let realm = try Realm(configuration: configuration)
            try realm.write { realm.create(Owner.self, value: ["id": 1]) }
            let observed = DispatchSemaphore(value: 0)
            let token = realm.objects(Owner.self).observe(keyPaths: ["id"], on: queue) { _ in observed.signal() }
            observed.wait()
            queue.sync {
                let writer = try! Realm(configuration: configuration)
                try! writer.write { writer.create(Owner.self, value: ["id": 2]) }
            }
            observed.wait()
            token.invalidate()
            let frozen = realm.freeze()
            #expect(frozen.objects(Owner.self).count == 2)
        }
        queue.sync {}
        let fresh = try Realm(configuration: configuration)
        #expect(fresh.objects(Owner.self).isEmpty)
    }

    @Test func readOnlyRealmsRefuseWrites() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        do {
            let realm = try Realm(configuration: dir.configuration())
            try makeOwners(realm)
        }
        var configuration = dir.configuration()
        configuration.readOnly = true
        let realm = try Realm(configuration: configuration)
        #expect(realm.objects(Owner.self).count == 3)
        #expect(throws: Realm.Error.self) { try realm.write {} }
    }

    @Test func aggregates() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration())
        try makeOwners(realm)
        let owners = realm.objects(Owner.self)
        #expect(owners.min(ofProperty: "age") as Int? == 30)
        #expect(owners.max(ofProperty: "age") as Int? == 50)
        #expect(owners.sum(ofProperty: "age") as Int == 120)
        #expect(owners.average(ofProperty: "age") as Double? == 40)
        #expect(owners.sum(ofProperty: "weight") as Double == 121.5)
        #expect(owners.sum(ofProperty: "balance") as Decimal128 == Decimal128(60))
        #expect(owners.max(ofProperty: "balance") as Decimal128? == Decimal128(30))
        let none = owners.filter("age > 100")
        #expect(none.min(ofProperty: "age") as Int? == nil)
        #expect(none.sum(ofProperty: "age") as Int == 0)
        #expect(none.average(ofProperty: "age") as Double? == nil)
    }

    @Test func sortingDistinctAndIndexes() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration())
        try makeOwners(realm)
        try realm.write { realm.create(Owner.self, value: ["id": 4, "name": "Ann", "age": 20]) }
        let byAge = realm.objects(Owner.self).sorted(byKeyPath: "age", ascending: false)
        #expect(byAge.map(\.id) == [3, 2, 1, 4])
        #expect(byAge.first?.id == 3)
        #expect(byAge.last?.id == 4)
        #expect(byAge[1].name == "Bob")
        #expect(byAge.index(of: byAge[2]) == 2)
        #expect(byAge.realm == realm)
        let names = realm.objects(Owner.self).sorted(byKeyPath: "id").distinct(by: ["name"])
        #expect(names.map(\.id) == [1, 2, 3])
        let multi = realm.objects(Owner.self).sorted(by: [SortDescriptor(keyPath: "name"), SortDescriptor(keyPath: "age", ascending: false)])
        #expect(multi.map(\.id) == [1, 4, 2, 3])
    }

    @Test func upsertWithModifiedAndAll() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration())
        try makeOwners(realm)
        try realm.write {
            realm.create(Owner.self, value: ["id": 1, "name": "Annie"], update: .modified)
            let replacement = Owner()
            replacement.id = 2
            replacement.name = "Robert"
            realm.add(replacement, update: .all)
        }
        #expect(realm.objects(Owner.self).count == 3)
        #expect(realm.object(ofType: Owner.self, forPrimaryKey: 1)?.name == "Annie")
        #expect(realm.object(ofType: Owner.self, forPrimaryKey: 2)?.name == "Robert")
        #expect(realm.object(ofType: Owner.self, forPrimaryKey: 9) == nil)
    }

    @Test func managedCollections() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration())
        try makeOwners(realm)
        let owner = try #require(realm.object(ofType: Owner.self, forPrimaryKey: 1))
        try realm.write {
            owner.scores.append(objectsIn: [5, 6, 7])
            owner.scores.insert(4, at: 0)
            owner.scores.remove(at: 3)
            owner.scores.move(from: 0, to: 2)
            owner.tags.insert(objectsIn: ["x", "y", "x"])
            owner.tags.remove("y")
            owner.prices["usd"] = 2
            owner.prices["eur"] = 1
            owner.prices.removeObject(for: "usd")
        }
        #expect(Array(owner.scores) == [5, 6, 4])
        #expect(Array(owner.tags) == ["x"])
        #expect(owner.prices.keys == ["eur"])
        #expect(owner.prices["eur"] == 1)
        #expect(realm.objects(Owner.self).filter("ANY scores > 5").map(\.id) == [1])
        #expect(realm.objects(Owner.self).filter("tags.@count == 1").map(\.id) == [1])
        #expect(realm.objects(Owner.self).filter("prices['eur'] == 1").map(\.id) == [1])
    }

    @Test func deletingAnObjectNullifiesAndRemovesLinks() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration())
        let owner = Owner()
        owner.id = 1
        let rex = Dog()
        rex.name = "Rex"
        let fido = Dog()
        fido.name = "Fido"
        owner.dogs.append(objectsIn: [rex, fido])
        owner.favorite = rex
        try realm.write { realm.add(owner) }
        #expect(rex.owners.count == 1)
        try realm.write { realm.delete(rex) }
        #expect(owner.favorite == nil)
        #expect(owner.dogs.map(\.name) == ["Fido"])
        #expect(realm.objects(Dog.self).count == 1)
    }

    @Test func embeddedObjectsLiveAndDieWithTheirParent() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration())
        let owner = Owner()
        owner.id = 1
        let home = Address()
        home.city = "Porto"
        owner.address = home
        let old = Address()
        old.city = "Braga"
        owner.previousAddresses.append(old)
        try realm.write { realm.add(owner) }
        #expect(realm.objects(Owner.self).filter("address.city == 'Porto'").count == 1)
        #expect(realm.objects(Owner.self).filter("ANY previousAddresses.city == 'Braga'").count == 1)
        let replacement = Address()
        replacement.city = "Faro"
        try realm.write { owner.address = replacement }
        #expect(owner.address?.city == "Faro")
        #expect(home.isInvalidated)
        try realm.write { realm.delete(owner) }
        #expect(replacement.isInvalidated)
        #expect(old.isInvalidated)
    }

    @Test func deleteAllAndDeleteResults() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration())
        try makeOwners(realm)
        try realm.write { realm.delete(realm.objects(Owner.self).filter("age >= 40")) }
        #expect(realm.objects(Owner.self).map(\.id) == [1])
        try realm.write { realm.deleteAll() }
        #expect(realm.isEmpty)
    }

    @Test func beginCommitCancel() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration())
        realm.beginWrite()
        #expect(realm.isInWriteTransaction)
        realm.create(Owner.self, value: ["id": 1])
        realm.cancelWrite()
        #expect(realm.objects(Owner.self).isEmpty)
        realm.beginWrite()
        realm.create(Owner.self, value: ["id": 2])
        try realm.commitWrite()
        #expect(realm.objects(Owner.self).map(\.id) == [2])
        let value = try realm.write { 42 }
        #expect(value == 42)
    }

    /// A class first used inside a write transaction gets its table in that transaction; cancelling the write rolls
    /// the table back, and the class must still work afterwards (a CI run found `no such table` here when the suite
    /// ran this test before any other test had touched the class).
    @Test func classFirstUsedInACancelledWriteStillWorks() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration())
        realm.beginWrite()
        realm.create(FirstUsedInCancelledWrite.self, value: ["id": 1])
        let madeDuringTheWrite = realm.objects(FirstUsedInCancelledWrite.self)
        realm.cancelWrite()
        #expect(realm.objects(FirstUsedInCancelledWrite.self).isEmpty)
        try realm.write { realm.create(FirstUsedInCancelledWrite.self, value: ["id": 2]) }
        #expect(realm.objects(FirstUsedInCancelledWrite.self).map(\.id) == [2])
        #expect(madeDuringTheWrite.count == 1)
        let reopened = try Realm(configuration: dir.configuration(objectTypes: [FirstUsedInCancelledWrite.self]))
        #expect(reopened.objects(FirstUsedInCancelledWrite.self).map(\.id) == [2])
    }

    @Test func anotherInstanceSeesCommitsAfterRefresh() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration())
        let all = realm.objects(Owner.self)
        #expect(all.count == 0)
        let done = DispatchSemaphore(value: 0)
        let configuration = dir.configuration()
        Thread.detachNewThread {
            let other = try! Realm(configuration: configuration)
            try! other.write { other.create(Owner.self, value: ["id": 5]) }
            done.signal()
        }
        done.wait()
        realm.autorefresh = false
        #expect(all.count == 0)  // pinned to its version until refresh
        #expect(realm.refresh())
        #expect(all.count == 1)
    }

    @Test func createWithNestedValuesForLinksAndEmbeddedObjects() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration())
        try realm.write {
            realm.create(Owner.self, value: [
                "id": 1, "name": "Ann",
                "address": ["city": "Porto"],
                "previousAddresses": [["city": "Braga"], ["city": "Faro"]],
                "favorite": ["name": "Rex", "age": 3],
                "dogs": [["name": "Fido", "age": 1]],
            ])
        }
        let owner = try #require(realm.object(ofType: Owner.self, forPrimaryKey: 1))
        #expect(owner.address?.city == "Porto")
        #expect(owner.previousAddresses.map(\.city) == ["Braga", "Faro"])
        #expect(owner.favorite?.name == "Rex")
        #expect(owner.dogs.map(\.name) == ["Fido"])
    }
}

/// Used by one test only, so that its table is first created inside that test's write transaction.
final class FirstUsedInCancelledWrite: Object {
    @Persisted(primaryKey: true) var id: Int

    @Test func errorsAndValuesMadeTheWayRealmMakesThem() {
        let error = Realm.Error(.fileAccess, userInfo: [NSLocalizedDescriptionKey: "no access", NSFilePathErrorKey: "/tmp/x"])
        #expect(error.code == .fileAccess && error.localizedDescription == "no access")
        #expect(error.fileURL?.path == "/tmp/x")
        #expect(Realm.Error(.fail).code == .fail)
        #expect(Array(AnyRealmValue.fromArray([.int(1), .string("a")]).listValue ?? List()) == [.int(1), .string("a")])
        #expect(AnyRealmValue.fromDictionary(["k": .bool(true)]).dictionaryValue?["k"] == .bool(true))
    }
}
