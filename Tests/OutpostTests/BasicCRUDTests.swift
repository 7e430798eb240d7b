import Foundation
import Outpost
import OutpostTesting
import Testing

@Suite struct BasicCRUDTests {
    @Test func seedItemWriteAndQuery() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration())
        let learn = Item()
        learn.ownerId = "user-1"
        learn.itemName = "Learn Realm CRUD stuff"
        learn.complexity = 3
        let hard = Item()
        hard.ownerId = "user-1"
        hard.itemName = "Fix the bug"
        hard.complexity = 7
        try realm.write {
            realm.add(learn)
            realm.add(hard)
        }
        #expect(learn.realm != nil)
        #expect(realm.objects(Item.self).count == 2)
        let easy = realm.objects(Item.self).filter("complexity <= 4")
        #expect(easy.count == 1)
        #expect(easy.first?.itemName == "Learn Realm CRUD stuff")
        let found = realm.object(ofType: Item.self, forPrimaryKey: learn._id)
        #expect(found?.itemName == "Learn Realm CRUD stuff")
        try realm.write { learn.complexity = 5 }
        #expect(easy.count == 0)
        #expect(found?.complexity == 5)
    }

    /// A string holding NUL characters is stored whole (it was bound as a C string, and everything from the
    /// first NUL on was lost), as a property, in an update and as a query argument; so is the empty string.
    @Test func stringsWithNULAreStoredWhole() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let texts = ["nul \u{0} inside", "\u{0}", "\u{0}\u{0}tail", "", "é\u{0}🙂"]
        do {
            let realm = try Realm(configuration: dir.configuration())
            try realm.write {
                for (i, text) in texts.enumerated() {
                    let item = Item()
                    item.ownerId = text
                    item.itemName = "item \(i)"
                    item.complexity = i
                    realm.add(item)
                }
            }
            let first = try #require(realm.objects(Item.self).filter("complexity == 0").first)
            try realm.write { first.itemName = "renamed \u{0} too" }
        }
        let reopened = try Realm(configuration: dir.configuration())
        let items = reopened.objects(Item.self).sorted(byKeyPath: "complexity")
        #expect(Array(items.map(\.ownerId)) == texts)
        #expect(items.first?.itemName == "renamed \u{0} too")
        #expect(reopened.objects(Item.self).filter("ownerId == %@", "nul \u{0} inside").count == 1)
        #expect(reopened.objects(Item.self).filter("ownerId == %@", "nul ").count == 0)
    }

    @Test func allPropertyTypesRoundTrip() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration())
        let owner = Owner()
        owner.id = 1
        owner.name = "Ann"
        owner.nickname = "A"
        let rex = Dog()
        rex.name = "Rex"
        rex.age = 3
        owner.dogs.append(rex)
        owner.favorite = rex
        owner.tags.insert("a")
        owner.tags.insert("b")
        owner.tags.insert("a")
        owner.scores.append(objectsIn: [3, 1, 2])
        owner.prices["eur"] = 1.5
        let address = Address()
        address.city = "Lisbon"
        owner.address = address
        owner.mood = .grumpy
        owner.anything = .string("hello")
        owner.balance = "12.50"
        owner.born = Date(timeIntervalSince1970: 1_000_000)
        let token = UUID()
        owner.token = token
        owner.photo = Data([1, 2, 3])
        owner.ratio = 0.5
        owner.weight = 70.25
        owner.flag = true
        owner.small = -5
        try realm.write { realm.add(owner) }

        let again = try #require(realm.objects(Owner.self).first)
        #expect(again.name == "Ann")
        #expect(again.nickname == "A")
        #expect(again.age == 30)
        #expect(again.dogs.count == 1)
        #expect(again.dogs[0].name == "Rex")
        #expect(again.favorite?.name == "Rex")
        #expect(Set(again.tags) == ["a", "b"])
        #expect(Array(again.scores) == [3, 1, 2])
        #expect(again.prices["eur"] == 1.5)
        #expect(again.address?.city == "Lisbon")
        #expect(again.mood == .grumpy)
        #expect(again.anything == .string("hello"))
        #expect(again.balance == (try Decimal128(string: "12.5")))
        #expect(again.born == Date(timeIntervalSince1970: 1_000_000))
        #expect(again.token == token)
        #expect(again.photo == Data([1, 2, 3]))
        #expect(again.ratio == 0.5)
        #expect(again.weight == 70.25)
        #expect(again.flag)
        #expect(again.small == -5)
        #expect(realm.objects(Dog.self).first?.owners.first?.name == "Ann")
    }

    @Test func duplicatePrimaryKeyFailsTheWriteAndStoresNothing() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration())
        let a = Owner()
        a.id = 7
        try realm.write { realm.add(a) }
        #expect(throws: Realm.Error.self) {
            try realm.write {
                let extra = Owner()
                extra.id = 8
                realm.add(extra)
                let dup = Owner()
                dup.id = 7
                realm.add(dup)
            }
        }
        #expect(realm.objects(Owner.self).count == 1)
        do {
            try realm.write {
                let dup = Owner()
                dup.id = 7
                realm.add(dup)
            }
            Issue.record("expected an error")
        } catch let error as Realm.Error {
            #expect(error.code == .invalidInput)
            #expect(error.message == "Attempting to create an object of type 'Owner' with an existing primary key value '7'.")
        }
    }
}
