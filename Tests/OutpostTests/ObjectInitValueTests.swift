import Foundation
import Outpost
import OutpostTesting
import Testing

/// A class with collections of objects, for nested `init(value:)` input.
final class IVKennel: Object {
    @Persisted var name: String
    @Persisted var dogsByName: Map<String, Dog?>
    @Persisted var regulars: MutableSet<Dog>
    @Persisted var addresses: Map<String, Address?>
}

/// Another Outpost class with some of `Dog`'s property names.
final class IVPuppy: Object {
    @Persisted var name: String
    @Persisted var age: Int
    @Persisted var breed: String
}

/// A plain Swift value exposing `Dog`'s properties (Realm takes any key-value coding compliant object).
private struct DogInfo {
    let name: String
    let age: Int
}

/// `Object.init(value:)` and `EmbeddedObject.init(value:)` with Realm's input forms and messages, `create` with a
/// short array, and `Decimal128(number:)` / `Decimal128(value:)`.
@Suite struct ObjectInitValueTests {
    // MARK: Dictionaries

    @Test func dictionarySetsTheGivenPropertiesAndKeepsTheDefaults() {
        let born = Date(timeIntervalSince1970: 1_000)
        let owner = Owner(value: [
            "id": 7, "name": "Ann", "nickname": NSNull(), "scores": [3, 1], "tags": ["a", "b", "a"],
            "prices": ["tea": 2.5, "cake": 4], "mood": Mood.grumpy, "anything": AnyRealmValue.string("x"),
            "balance": 12, "born": born, "ratio": 1.5, "weight": 70, "flag": true, "small": 4,
            "notAProperty": "ignored, as Realm does",
        ])
        #expect(owner.realm == nil)
        #expect(owner.id == 7)
        #expect(owner.name == "Ann")
        #expect(owner.nickname == nil)
        #expect(owner.age == 30)  // the class's default
        #expect(Array(owner.scores) == [3, 1])
        #expect(Set(owner.tags) == ["a", "b"] && owner.tags.count == 2)
        #expect(owner.prices["tea"] == 2.5 && owner.prices["cake"] == 4)
        #expect(owner.mood == .grumpy)
        #expect(owner.anything == .string("x"))
        #expect(owner.balance == Decimal128(12))
        #expect(owner.born == born)
        #expect(owner.ratio == 1.5)
        #expect(owner.weight == 70)
        #expect(owner.flag)
        #expect(owner.small == 4)
    }

    @Test func enumPropertiesTakeTheirRawValue() {
        #expect(Owner(value: ["mood": "grumpy"]).mood == .grumpy)
    }

    // MARK: Arrays

    @Test func arrayGivesValuesInPropertyOrder() {
        let dog = Dog(value: ["Rex", 3])
        #expect(dog.name == "Rex")
        #expect(dog.age == 3)
        #expect(dog.realm == nil)
    }

    @Test func shortArrayLeavesTheRestAtTheirDefaults() {
        let dog = Dog(value: ["Rex"])
        #expect(dog.name == "Rex" && dog.age == 0)
        let owner = Owner(value: [1, "Bo"])
        #expect(owner.id == 1 && owner.name == "Bo" && owner.age == 30 && owner.mood == .happy)
        let empty = Owner(value: [Any]())
        #expect(empty.age == 30)
    }

    @Test func embeddedObjectsTakeDictionariesAndArrays() {
        let fromDictionary = Address(value: ["city": "Porto"])
        #expect(fromDictionary.city == "Porto" && fromDictionary.street == nil)
        let fromArray = Address(value: ["Braga", "Rua Nova"])
        #expect(fromArray.city == "Braga" && fromArray.street == "Rua Nova")
    }

    // MARK: Objects

    @Test func anUnmanagedObjectIsCopied() {
        let rex = Dog(value: ["Rex", 3])
        let original = Owner(value: ["id": 2, "name": "Cy", "favorite": rex, "dogs": [rex], "scores": [5]])
        let copy = Owner(value: original)
        #expect(copy !== original)
        #expect(copy.id == 2 && copy.name == "Cy" && Array(copy.scores) == [5])
        #expect(copy.favorite === rex)  // links are shared, as in Realm
        #expect(copy.dogs.first === rex)
        copy.scores.append(6)
        #expect(Array(original.scores) == [5])  // the collection is the copy's own
    }

    @Test func aManagedObjectIsCopiedUnmanaged() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration())
        try realm.write {
            realm.create(Owner.self, value: ["id": 3, "name": "Di", "dogs": [["Fido", 2]], "address": ["Faro"]])
        }
        let managed = try #require(realm.object(ofType: Owner.self, forPrimaryKey: 3))
        let copy = Owner(value: managed)
        #expect(copy.realm == nil)
        #expect(copy.id == 3 && copy.name == "Di")
        #expect(copy.dogs.map(\.name) == ["Fido"])
        #expect(copy.address?.city == "Faro")
        copy.name = "changed outside a write"
        #expect(managed.name == "Di")
    }

    @Test func anyValueWithThePropertyNamesIsRead() {
        let fromStruct = Dog(value: DogInfo(name: "Rex", age: 4))
        #expect(fromStruct.name == "Rex" && fromStruct.age == 4)
        let puppy = IVPuppy(value: ["Bit", 1, "beagle"])
        let fromOtherClass = Dog(value: puppy)
        #expect(fromOtherClass.name == "Bit" && fromOtherClass.age == 1)
    }

    // MARK: Nested values

    @Test func nestedDictionariesAndArraysBecomeObjects() {
        let max = Dog(value: ["Max", 9])
        let owner = Owner(value: [
            "id": 4,
            "favorite": ["name": "Rex", "age": 3],
            "dogs": [["Fido", 1], ["name": "Bella"], max, DogInfo(name: "Spot", age: 2)],
            "address": ["city": "Porto"],
            "previousAddresses": [["Braga"], ["city": "Faro", "street": "Rua 1"]],
        ])
        #expect(owner.favorite?.name == "Rex" && owner.favorite?.age == 3)
        #expect(owner.dogs.map(\.name) == ["Fido", "Bella", "Max", "Spot"])
        #expect(owner.dogs[2] === max)
        #expect(owner.dogs.allSatisfy { $0.realm == nil })
        #expect(owner.address?.city == "Porto")
        #expect(owner.previousAddresses.map(\.city) == ["Braga", "Faro"])
        #expect(owner.previousAddresses[1].street == "Rua 1")
    }

    @Test func nestedValuesInMapsAndSets() {
        let kennel = IVKennel(value: [
            "name": "North",
            "dogsByName": ["rex": ["Rex", 3], "none": NSNull()],
            "regulars": [["Fido"], ["name": "Max"]],
            "addresses": ["home": ["city": "Porto"]],
        ])
        #expect(kennel.dogsByName["rex"]??.age == 3)
        #expect(kennel.dogsByName.count == 2)
        #expect(kennel.dogsByName["none"] == .some(nil))
        #expect(Set(kennel.regulars.map(\.name)) == ["Fido", "Max"])
        #expect(kennel.addresses["home"]??.city == "Porto")
    }

    @Test func anObjectMadeFromAValueCanBeAdded() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration())
        let owner = Owner(value: ["id": 5, "name": "Eve", "dogs": [["Rex", 3]], "address": ["Porto"]])
        try realm.write { realm.add(owner) }
        #expect(owner.realm != nil)
        let stored = try #require(realm.object(ofType: Owner.self, forPrimaryKey: 5))
        #expect(stored.name == "Eve" && stored.age == 30)
        #expect(stored.dogs.map(\.name) == ["Rex"])
        #expect(stored.address?.city == "Porto")
        #expect(realm.objects(Dog.self).count == 1)
    }

    // MARK: create with a short array

    @Test func createWithAShortArrayFillsTheDefaults() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration())
        try realm.write {
            realm.create(Dog.self, value: ["Rex"])
            realm.create(Owner.self, value: [6, "Flo"])
        }
        let dog = try #require(realm.objects(Dog.self).first)
        #expect(dog.name == "Rex" && dog.age == 0)
        let owner = try #require(realm.object(ofType: Owner.self, forPrimaryKey: 6))
        #expect(owner.name == "Flo" && owner.age == 30 && owner.mood == .happy && owner.dogs.isEmpty)
    }

    @Test func createReadsAnyValueWithThePropertyNames() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration())
        try realm.write { realm.create(Dog.self, value: DogInfo(name: "Rex", age: 4)) }
        #expect(realm.objects(Dog.self).first?.age == 4)
    }

    // MARK: Decimal128

    @Test func decimal128FromNumbers() {
        #expect(Decimal128(number: 123) == Decimal128(123))
        #expect(Decimal128(number: NSNumber(value: 2.5)).stringValue == "2.5")
        #expect(Decimal128(number: NSNumber(value: Float(2.2))).stringValue == "2.2")
        #expect(Decimal128(number: NSNumber(value: UInt64.max)) == Decimal128(UInt64.max))
        #expect(Decimal128(number: NSNumber(value: -7 as Int8)) == Decimal128(-7))
        #expect(Decimal128(number: NSDecimalNumber(string: "3.14")) == Decimal128(stringLiteral: "3.14"))
    }

    @Test func decimal128FromValues() {
        #expect(Decimal128(value: 5) == Decimal128(5))
        #expect(Decimal128(value: Int8(-3)) == Decimal128(-3))
        #expect(Decimal128(value: UInt32(9)) == Decimal128(9))
        #expect(Decimal128(value: 3.3).stringValue == "3.3")
        #expect(Decimal128(value: 2.2 as Float).stringValue == "2.2")
        #expect(Decimal128(value: "1.25") == Decimal128(stringLiteral: "1.25"))
        #expect(Decimal128(value: Decimal(string: "0.1")!) == Decimal128(stringLiteral: "0.1"))
        #expect(Decimal128(value: Decimal128(42)) == Decimal128(42))
        #expect(Decimal128(value: NSNumber(value: 8)) == Decimal128(8))
        #expect(Decimal128(value: "not a number").isNaN)
        #expect(Decimal128(value: NSNull()).isNaN)
    }

    // MARK: Invalid input traps with Realm's messages

    @Test func moreArrayValuesThanPropertiesTraps() async {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Dog(value: ["Rex", 3, "extra"])
        }.map { result in
            #expect(String(decoding: result.standardErrorContent, as: UTF8.self)
                .contains("Invalid array input: more values (3) than properties (2)."))
        }
    }

    @Test func nilValueTraps() async {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Dog(value: NSNull())
        }.map { result in
            #expect(String(decoding: result.standardErrorContent, as: UTF8.self)
                .contains("Must provide a non-nil value."))
        }
    }

    @Test func aValueOfTheWrongTypeTraps() async {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Dog(value: ["name": 5])
        }.map { result in
            #expect(String(decoding: result.standardErrorContent, as: UTF8.self)
                .contains("Invalid value '5' of type 'Int' for 'string' property 'Dog.name'."))
        }
    }

    @Test func nullForARequiredPropertyTraps() async {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Owner(value: ["scores": [1, NSNull()]])
        }.map { result in
            #expect(String(decoding: result.standardErrorContent, as: UTF8.self)
                .contains("for 'int' array property 'Owner.scores'."))
        }
    }

    @Test func aValueWithoutThePropertyNamesTraps() async {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = IVPuppy(value: DogInfo(name: "Rex", age: 1))
        }.map { result in
            #expect(String(decoding: result.standardErrorContent, as: UTF8.self)
                .contains("to initialize object of type 'IVPuppy': missing key 'breed'"))
        }
    }

    @Test func aScalarForACollectionTraps() async {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Owner(value: ["scores": 5])
        }.map { result in
            #expect(String(decoding: result.standardErrorContent, as: UTF8.self)
                .contains("Invalid value (5) for 'int' array property 'Owner.scores': value is not enumerable."))
        }
    }

    @Test func decimal128FromAnUnsupportedTypeTraps() async {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Decimal128(value: Date(timeIntervalSince1970: 0))
        }.map { result in
            #expect(String(decoding: result.standardErrorContent, as: UTF8.self)
                .contains("Cannot convert value '1970-01-01 00:00:00 +0000' of type 'Date' to decimal128"))
        }
    }
}
