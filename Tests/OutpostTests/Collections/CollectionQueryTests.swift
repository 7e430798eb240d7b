import Foundation
import Outpost
import OutpostTesting
import Testing

final class CQDog: Object {
    @Persisted var name: String
    @Persisted var age: Int
    @Persisted var weight: Double
    @Persisted(originProperty: "dogs") var owners: LinkingObjects<CQOwner>

    convenience init(_ name: String, age: Int, weight: Double = 1) {
        self.init()
        self.name = name
        self.age = age
        self.weight = weight
    }
}

final class CQOwner: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var dogs: List<CQDog>
    @Persisted var dogSet: MutableSet<CQDog>
    @Persisted var ints: List<Int>
    @Persisted var optionalDoubles: List<Double?>
    @Persisted var intSet: MutableSet<Int>
    @Persisted var names: List<String>
}

/// The query and aggregate API on every collection (`RealmCollection`): results over a list or set keep its order
/// (and a list's duplicates), collections of values sort and aggregate, generic code runs on each kind.
@Suite struct CollectionQueryTests {
    let dir = TemporaryDirectory()

    func realm() throws -> Realm {
        try Realm(configuration: dir.configuration(objectTypes: [CQDog.self, CQOwner.self]))
    }

    /// An owner whose list holds rex, ace, bo, rex (a duplicate), in that order; its set holds ace and bo.
    func seeded() throws -> (Realm, CQOwner) {
        let realm = try realm()
        let owner = CQOwner()
        owner.id = 1
        try realm.write {
            // Table order (rowids) differs from the list's order.
            let bo = realm.create(CQDog.self, value: ["name": "bo", "age": 3, "weight": 30.0])
            let ace = realm.create(CQDog.self, value: ["name": "ace", "age": 7, "weight": 10.0])
            let rex = realm.create(CQDog.self, value: ["name": "rex", "age": 5, "weight": 20.0])
            realm.create(CQDog.self, value: ["name": "stray", "age": 9, "weight": 99.0])
            owner.dogs.append(objectsIn: [rex, ace, bo, rex])
            owner.dogSet.insert(objectsIn: [ace, bo])
            owner.ints.append(objectsIn: [3, 1, 2, 3])
            owner.optionalDoubles.append(objectsIn: [1.5, nil, 2.5])
            owner.intSet.insert(objectsIn: [5, 4])
            owner.names.append(objectsIn: ["b", "a"])
            realm.add(owner)
        }
        return (realm, owner)
    }

    @Test func listQueriesKeepTheListsOrderAndDuplicates() throws {
        defer { dir.remove() }
        let (_, owner) = try seeded()
        #expect(owner.dogs.filter("age >= 5").map(\.name) == ["rex", "ace", "rex"])
        #expect(owner.dogs.where { $0.age < 6 }.map(\.name) == ["rex", "bo", "rex"])
        #expect(owner.dogs.sorted(byKeyPath: "age").map(\.name) == ["bo", "rex", "rex", "ace"])
        #expect(owner.dogs.sorted(by: \.name, ascending: false).map(\.name) == ["rex", "rex", "bo", "ace"])
        #expect(owner.dogs.distinct(by: ["name"]).map(\.name) == ["rex", "ace", "bo"])
        #expect(owner.dogs.filter("age > 100").isEmpty)
        #expect(owner.dogs.index(matching: "name == 'bo'") == 2)
        #expect(owner.dogs.index(matching: { $0.name == "ace" }) == 1)
        #expect(owner.dogs.index(matching: "name == 'nobody'") == nil)
        #expect(owner.dogs.objects(at: [1, 3]).map(\.name) == ["ace", "rex"])
    }

    @Test func aggregatesOfObjectCollectionsCountEachElement() throws {
        defer { dir.remove() }
        let (_, owner) = try seeded()
        #expect(owner.dogs.min(ofProperty: "age") as Int? == 3)
        #expect(owner.dogs.max(ofProperty: "age") as Int? == 7)
        #expect(owner.dogs.sum(ofProperty: "age") as Int == 20)  // rex counts twice
        #expect(owner.dogs.average(ofProperty: "weight") as Double? == 20)
        #expect(owner.dogs.sum(of: \.weight) == 80)
        #expect(owner.dogs.max(of: \.weight) == 30)
        #expect(owner.dogSet.sum(of: \.age) == 10)
        #expect(owner.dogSet.filter("name == 'bo'").map(\.age) == [3])
        #expect(owner.dogSet.sorted(byKeyPath: "age", ascending: false).map(\.name) == ["ace", "bo"])
    }

    @Test func collectionsOfValuesSortDistinctAndAggregate() throws {
        defer { dir.remove() }
        let (_, owner) = try seeded()
        #expect(Array(owner.ints.sorted()) == [1, 2, 3, 3])
        #expect(Array(owner.ints.sorted(ascending: false)) == [3, 3, 2, 1])
        #expect(Array(owner.ints.distinct()) == [3, 1, 2])
        #expect(owner.ints.min() == 1)
        #expect(owner.ints.max() == 3)
        #expect(owner.ints.sum() == 9)
        #expect(owner.ints.average() as Double? == 2.25)
        #expect(owner.optionalDoubles.sum() == 4.0)
        #expect(owner.optionalDoubles.min() == 1.5)
        #expect(owner.optionalDoubles.average() as Double? == 2.0)
        #expect(Array(owner.names.sorted()) == ["a", "b"])
        #expect(Array(owner.intSet.sorted()) == [4, 5])
        #expect(owner.intSet.sum() == 9)
        // Unmanaged collections aggregate in memory.
        let loose = List<Int>()
        loose.append(objectsIn: [4, 8])
        #expect(loose.sum() == 12)
        #expect(loose.max() == 8)
        #expect(loose.average() as Double? == 6)
        #expect(List<Int>().min() == nil)
        #expect(List<Int>().sum() == 0)
    }

    @Test func resultsOverACollectionAreLive() throws {
        defer { dir.remove() }
        let (realm, owner) = try seeded()
        let young = owner.dogs.filter("age < 6")
        let sortedInts = owner.ints.sorted()
        #expect(young.count == 3)
        try realm.write {
            owner.dogs.remove(at: 0)
            owner.ints.append(0)
        }
        #expect(young.map(\.name) == ["bo", "rex"])
        #expect(Array(sortedInts) == [0, 1, 2, 3, 3])
        let frozen = young.freeze()
        try realm.write { owner.dogs.removeAll() }
        #expect(young.isEmpty)
        #expect(frozen.map(\.name) == ["bo", "rex"])
        // The owner's deletion empties and invalidates them, also when a new object takes its rowid.
        try realm.write { realm.delete(owner) }
        #expect(sortedInts.isEmpty && sortedInts.isInvalidated && young.isInvalidated)
        try realm.write {
            let other = realm.create(CQOwner.self, value: ["id": 2])
            other.ints.append(objectsIn: [7, 8])
            other.dogs.append(realm.create(CQDog.self, value: ["name": "new", "age": 1]))
        }
        #expect(sortedInts.isEmpty && young.isEmpty)
    }

    /// Notifications on results over a list: a duplicated object is two elements, a renamed one a modification;
    /// for values, a changed value is a deletion and an insertion.
    @Test func resultsOverAListNotifyLikeResults() throws {
        defer { dir.remove() }
        let (realm, owner) = try seeded()
        var objectChanges: [String] = []
        var valueChanges: [String] = []
        func text<C>(_ change: RealmCollectionChange<C>) -> String {
            switch change {
            case .initial: "initial"
            case .update(_, let d, let i, let m): "d\(d) i\(i) m\(m)"
            case .error(let error): "\(error)"
            }
        }
        let byName = owner.dogs.sorted(byKeyPath: "name")  // ace, bo, rex, rex
        let ints = owner.ints.sorted()  // 1, 2, 3, 3
        let t1 = byName.observe { objectChanges.append(text($0)) }
        let t2 = ints.observe { valueChanges.append(text($0)) }
        defer { t1.invalidate(); t2.invalidate() }
        #expect(spinRunLoop { objectChanges.count == 1 && valueChanges.count == 1 })
        try realm.write { owner.dogs[1].age = 8 }  // ace
        #expect(spinRunLoop { objectChanges.count == 2 })
        try realm.write { owner.ints[1] = 4 }  // 3, 4, 2, 3 → sorted 2, 3, 3, 4
        #expect(spinRunLoop { valueChanges.count == 2 })
        #expect(objectChanges == ["initial", "d[] i[] m[0]"])
        #expect(valueChanges == ["initial", "d[0] i[3] m[]"])
    }

    @Test func linkingObjectsAndWrappedCollectionsAreObserved() throws {
        defer { dir.remove() }
        let (realm, owner) = try seeded()
        let bo = try #require(realm.objects(CQDog.self).filter("name == 'bo'").first)
        var owners: [Int] = []
        var wrapped: [Int] = []
        let t1 = bo.owners.observe { change in
            if case .initial(let c) = change { owners.append(c.count) }
            if case .update(let c, _, _, _) = change { owners.append(c.count) }
        }
        let t2 = AnyRealmCollection(owner.dogs).observe { change in
            if case .initial(let c) = change { wrapped.append(c.count) }
            if case .update(let c, _, _, _) = change { wrapped.append(c.count) }
        }
        defer { t1.invalidate(); t2.invalidate() }
        #expect(spinRunLoop { owners.count == 1 && wrapped.count == 1 })
        try realm.write {
            let second = realm.create(CQOwner.self, value: ["id": 2])
            second.dogs.append(bo)
            owner.dogs.append(bo)
        }
        #expect(spinRunLoop { owners.count == 2 && wrapped.count == 2 })
        #expect(owners == [1, 2])
        #expect(wrapped == [4, 5])
    }

    @Test func linkingObjectsAreObservedOnAQueue() throws {
        defer { dir.remove() }
        let (realm, _) = try seeded()
        let bo = try #require(realm.objects(CQDog.self).filter("name == 'bo'").first)
        let delivered = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var counts: [Int] = []
        let token = bo.owners.observe(on: DispatchQueue(label: "owners")) { change in
            if case .initial(let owners) = change { counts.append(owners.count) }
            if case .update(let owners, _, _, _) = change { counts.append(owners.count) }
            delivered.signal()
        }
        defer { token.invalidate() }
        #expect(delivered.wait(timeout: .now() + 60) == .success)
        try realm.write { realm.create(CQOwner.self, value: ["id": 3]).dogs.append(bo) }
        #expect(delivered.wait(timeout: .now() + 60) == .success)
        #expect(counts == [1, 2])
    }

    @Test func iteratingValuesWhileWritingKeepsTheIteratedElements() throws {
        defer { dir.remove() }
        let (realm, owner) = try seeded()
        let sorted = owner.ints.sorted()
        var seen: [Int] = []
        for value in sorted {
            seen.append(value)
            try realm.write { owner.ints.insert(100, at: 0) }
            _ = sorted.count  // re-evaluates the shared cache
        }
        #expect(seen == [1, 2, 3, 3])
        #expect(Array(sorted).prefix(4) == [1, 2, 3, 3] && sorted.count == 8)
    }

    @Test func linkingObjectsAreACollection() throws {
        defer { dir.remove() }
        let (realm, owner) = try seeded()
        let rex = try #require(realm.objects(CQDog.self).filter("name == 'rex'").first)
        #expect(rex.owners.count == 1)
        #expect(rex.owners.last?.id == owner.id)
        #expect(rex.owners.realm != nil)
        #expect(rex.owners.filter("id == 1").count == 1)
        #expect(rex.owners.sum(ofProperty: "id") as Int == 1)
        #expect(rex.owners.description.hasPrefix("LinkingObjects<CQOwner> <0x0> (\n\t[0] CQOwner {\n\t\tid = 1;"))
        try realm.write { realm.create(CQOwner.self, value: ["id": 2]) }  // links to no dog
        let frozen = rex.owners.freeze()
        #expect(frozen.isFrozen && frozen.count == 1)
        #expect(frozen.filter("id >= 1").count == 1)
        #expect(frozen.where { $0.id >= 1 }.count == 1)
        #expect(frozen.filter("id >= 1").isFrozen)
    }

    @Test func genericCodeRunsOnEveryKindOfCollection() throws {
        defer { dir.remove() }
        let (realm, owner) = try seeded()
        func names<C: RealmCollection>(_ collection: C) -> [String] where C.Element == CQDog {
            collection.filter("age > 4").sorted(byKeyPath: "name").map(\.name)
        }
        #expect(names(realm.objects(CQDog.self)) == ["ace", "rex", "stray"])
        #expect(names(owner.dogs) == ["ace", "rex", "rex"])
        #expect(names(owner.dogSet) == ["ace"])
        func total<C: RealmCollection>(_ collection: C) -> Int where C.Element == Int { collection.sum() }
        #expect(total(owner.ints) == 9)
        #expect(total(owner.intSet) == 9)
        #expect(owner.dogSet.realm != nil && owner.dogSet.first != nil && owner.dogSet.last != nil)
        #expect(owner.dogSet[0].name == owner.dogSet.first?.name && owner.dogSet[1].name == owner.dogSet.last?.name)
    }

    @Test func anyRealmCollectionWrapsEveryKind() throws {
        defer { dir.remove() }
        let (realm, owner) = try seeded()
        let rex = try #require(realm.objects(CQDog.self).filter("name == 'rex'").first)
        let wrapped: [AnyRealmCollection<CQDog>] = [
            AnyRealmCollection(realm.objects(CQDog.self)), AnyRealmCollection(owner.dogs),
            AnyRealmCollection(owner.dogSet), AnyRealmCollection(rex.owners.first!.dogs),
        ]
        #expect(wrapped.map(\.count) == [4, 4, 2, 4])
        #expect(wrapped[1].map(\.name) == ["rex", "ace", "bo", "rex"])
        #expect(wrapped[1][2].name == "bo")
        #expect(wrapped[2][1].name == owner.dogSet.last?.name)
        #expect(wrapped[1].filter("age > 4").count == 3)
        #expect(wrapped[1].sorted(byKeyPath: "age").first?.name == "bo")
        #expect(wrapped[1].sum(ofProperty: "age") as Int == 20)
        #expect(wrapped.allSatisfy { $0.realm != nil && !$0.isFrozen && !$0.isInvalidated })
        // Wrapping a wrapper does not nest it.
        #expect(AnyRealmCollection(wrapped[1]).map(\.name) == wrapped[1].map(\.name))
        let frozen = wrapped[1].freeze()
        #expect(frozen.isFrozen && frozen.count == 4)
        let ints = AnyRealmCollection(owner.ints)
        #expect(ints.sum() == 9 && Array(ints.sorted()) == [1, 2, 3, 3])
        // A reference resolves to the same elements in the same order on another thread.
        let reference = ThreadSafeReference(to: wrapped[1])
        let configuration = realm.configuration
        let names = try DispatchQueue(label: "resolve").sync {
            let other = try Realm(configuration: configuration)
            return other.resolve(reference).map { Array($0.map(\.name)) }
        }
        #expect(names == ["rex", "ace", "bo", "rex"])
    }

    @Test func queryingValuesTrapsWithRealmsText() async {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let dir = TemporaryDirectory()
            let realm = try Realm(configuration: dir.configuration(objectTypes: [CQDog.self, CQOwner.self]))
            let owner = CQOwner()
            try realm.write { realm.add(owner) }
            _ = owner.ints.filter("self > 1")
        }.map { result in
            #expect(String(decoding: result.standardErrorContent, as: UTF8.self)
                .contains("Querying is currently only implemented for arrays of Realm Objects"))
        }
    }

    @Test func queryingAnUnmanagedListTrapsWithRealmsText() async {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = CQOwner().dogs.filter("age > 1")
        }.map { result in
            #expect(String(decoding: result.standardErrorContent, as: UTF8.self)
                .contains("This method may only be called on RLMArray instances retrieved from an RLMRealm"))
        }
    }
}
