import Foundation
import Outpost
import OutpostTesting
import Testing

extension CQDog: ObjectKeyIdentifiable {}

/// Generic code over `C: RealmCollection` as Realm's is written (and as SwiftUI's `ForEach` needs): every collection
/// is a `RandomAccessCollection` indexed by `Int`, lazy, iterated by `RLMIterator`.
@Suite struct CollectionConformanceTests {
    let dir = TemporaryDirectory()

    func seeded() throws -> (Realm, CQOwner) {
        let realm = try Realm(configuration: dir.configuration(objectTypes: [CQDog.self, CQOwner.self]))
        let owner = CQOwner()
        owner.id = 1
        try realm.write {
            let bo = realm.create(CQDog.self, value: ["name": "bo", "age": 3])
            let ace = realm.create(CQDog.self, value: ["name": "ace", "age": 7])
            let rex = realm.create(CQDog.self, value: ["name": "rex", "age": 5])
            owner.dogs.append(objectsIn: [rex, ace, bo])
            owner.dogSet.insert(objectsIn: [rex, ace, bo])
            realm.add(owner)
        }
        return (realm, owner)
    }

    /// Walks `collection` by its indices, forwards and backwards, as generic collection code does.
    func names<C: RealmCollection>(_ collection: C) -> (forward: [String], backward: [String], middle: String?)
    where C.Element == CQDog, C.Index == Int {
        var forward: [String] = []
        var index = collection.startIndex
        while index != collection.endIndex {
            forward.append(collection[index].name)
            index = collection.index(after: index)
        }
        let backward = collection.indices.reversed().map { collection[$0].name }
        let middle = collection.count > 1 ? collection[collection.index(collection.startIndex, offsetBy: 1)].name : nil
        return (forward, backward, middle)
    }

    /// The element type SwiftUI's `ForEach(_:)` takes: a random-access collection of identifiable elements.
    func forEachData<Data: RandomAccessCollection>(_ data: Data) -> [Data.Element.ID] where Data.Element: Identifiable {
        data.map(\.id)
    }

    @Test func everyCollectionIsARandomAccessCollectionIndexedByInt() throws {
        let (realm, owner) = try seeded()
        let results = realm.objects(CQDog.self).sorted(byKeyPath: "name")
        #expect(names(results).forward == ["ace", "bo", "rex"])
        #expect(names(results).backward == ["rex", "bo", "ace"])
        #expect(names(results).middle == "bo")
        #expect(names(owner.dogs).forward == ["rex", "ace", "bo"])
        #expect(names(owner.dogs).backward == ["bo", "ace", "rex"])
        #expect(names(owner.dogSet).forward.sorted() == ["ace", "bo", "rex"])
        #expect(names(owner.dogSet).backward == names(owner.dogSet).forward.reversed())
        #expect(names(AnyRealmCollection(owner.dogs)).forward == ["rex", "ace", "bo"])
        #expect(names(AnyRealmCollection(owner.dogSet)).middle == names(owner.dogSet).middle)
        let empty = realm.objects(CQDog.self).filter("age > 100")
        #expect(names(empty).forward.isEmpty && empty.startIndex == empty.endIndex)
    }

    /// Generic code asks any collection for an element's position (Realm's `RealmCollection.index(of:)`).
    func position<C: RealmCollection>(of element: C.Element, in collection: C) -> Int? { collection.index(of: element) }

    /// `index(of:)` finds a managed object by its row — another read of the same object too, though a dog without a
    /// primary key is not `==` to it — and a value by equality.
    @Test func indexOfFindsObjectsByRowAndValuesByEquality() throws {
        let (realm, owner) = try seeded()
        let ace = try #require(realm.objects(CQDog.self).filter("name == 'ace'").first)
        let aceAgain = try #require(realm.objects(CQDog.self).filter("name == 'ace'").first)
        #expect(position(of: aceAgain, in: owner.dogs) == 1)
        #expect(position(of: ace, in: realm.objects(CQDog.self).sorted(byKeyPath: "name")) == 0)
        #expect(position(of: ace, in: AnyRealmCollection(owner.dogs)) == 1)
        #expect(position(of: owner, in: ace.owners) == 0)
        #expect(position(of: CQDog("stray", age: 1), in: owner.dogs) == nil)
        try realm.write { owner.ints.append(objectsIn: [4, 8, 15]) }
        #expect(position(of: 8, in: owner.ints) == 1)
        #expect(position(of: 15, in: owner.ints.sorted(ascending: false)) == 0)
        #expect(position(of: 16, in: owner.ints) == nil)
        let unmanaged = List<Int>()
        unmanaged.append(objectsIn: [1, 2])
        #expect(position(of: 2, in: unmanaged) == 1)
    }

    @Test func linkingObjectsWalkTheirOwners() throws {
        let (realm, owner) = try seeded()
        let ace = try #require(realm.objects(CQDog.self).filter("name == 'ace'").first)
        #expect(ace.owners.indices == 0..<1)
        #expect(ace.owners[ace.owners.startIndex].id == owner.id)
        #expect(Array(ace.owners.reversed()).map(\.id) == [1])
    }

    @Test func iteratorsAreRLMIterators() throws {
        let (realm, owner) = try seeded()
        // The protocol requires it (`Iterator == RLMIterator<Element>`); each type's own `makeIterator` answers one.
        func iterator<C: RealmCollection>(_ collection: C) -> RLMIterator<C.Element> { collection.makeIterator() }
        var results = iterator(realm.objects(CQDog.self).sorted(byKeyPath: "name"))
        #expect(results.next()?.name == "ace")
        var list: RLMIterator<CQDog> = owner.dogs.makeIterator()
        #expect(list.next()?.name == "rex")
        var set: RLMIterator<CQDog> = owner.dogSet.makeIterator()
        #expect(set.next() != nil)
        var any: RLMIterator<CQDog> = AnyRealmCollection(owner.dogs).makeIterator()
        #expect(any.next()?.name == "rex")
        let ace = try #require(realm.objects(CQDog.self).filter("name == 'ace'").first)
        var owners: RLMIterator<CQOwner> = ace.owners.makeIterator()
        #expect(owners.next()?.id == 1)
        #expect(owners.next() == nil)
    }

    @Test func collectionsAreLazyAndTheirTransformsAnswerArrays() throws {
        let (realm, owner) = try seeded()
        let results = realm.objects(CQDog.self).sorted(byKeyPath: "age")
        // `lazy` is the collection itself (`LazyCollectionProtocol`).
        let lazy: Results<CQDog> = results.lazy
        #expect(lazy == results)
        let names: [String] = results.map(\.name)
        #expect(names == ["bo", "rex", "ace"])
        #expect(results.compactMap { $0.age > 4 ? $0.name : nil } == ["rex", "ace"])
        #expect(results.filter { $0.age != 5 }.map(\.name) == ["bo", "ace"])
        #expect(owner.dogs.flatMap { [$0.name, $0.name] } == ["rex", "rex", "ace", "ace", "bo", "bo"])
        // Generic code over the protocol gets the same arrays.
        func ages<C: RealmCollection>(_ c: C) -> [Int] where C.Element == CQDog { c.map(\.age) }
        #expect(ages(owner.dogs) == [5, 7, 3])
        #expect(ages(AnyRealmCollection(results)) == [3, 5, 7])
        // Slices and the reversed view of a random-access collection.
        #expect(results[1...].map(\.name) == ["rex", "ace"])
        #expect(results.reversed().map(\.name) == ["ace", "rex", "bo"])
        #expect(results.prefix(2).map(\.name) == ["bo", "rex"])
    }

    @Test func objectsAreIdentifiableForSwiftUI() throws {
        let (realm, owner) = try seeded()
        let results = realm.objects(CQDog.self).sorted(byKeyPath: "name")
        #expect(forEachData(results) == results.map(\.id))
        #expect(forEachData(owner.dogs).count == 3)
        #expect(forEachData(owner.dogSet).count == 3)
        // One object read twice has one identity; two objects, two; an unmanaged object has its own until added.
        let again = realm.objects(CQDog.self).sorted(byKeyPath: "name")
        #expect(again[0].id == results[0].id && again[0] !== results[0])
        #expect(Set(results.map(\.id)).count == 3)
        #expect(Set(forEachData(owner.dogs)) == Set(results.map(\.id)))
        let stray = CQDog("stray", age: 1)
        let unmanaged = stray.id
        #expect(unmanaged == stray.id && !results.map(\.id).contains(unmanaged))
        try realm.write { realm.add(stray) }
        #expect(realm.objects(CQDog.self).filter("name == 'stray'").first?.id == stray.id)
    }
}
