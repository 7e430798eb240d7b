import Foundation
import Outpost

// The seed page's models.
final class Item: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var ownerId: String
    @Persisted var itemName: String
    @Persisted var complexity: Int
}

final class Person: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var name: String
    @Persisted var employeeId: Int
    @Persisted var userId: String?

    convenience init(name: String, employeeId: Int) {
        self.init()
        self.name = name
        self.employeeId = employeeId
    }
}

final class Dog: Object {
    @Persisted var name: String
    @Persisted var age: Int
    @Persisted(originProperty: "dogs") var owners: LinkingObjects<Owner>
}

final class Address: EmbeddedObject {
    @Persisted var city: String
    @Persisted var street: String?
}

enum Mood: String, PersistableEnum {
    case happy, grumpy
}

final class Owner: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted(indexed: true) var name: String
    @Persisted var nickname: String?
    @Persisted var age = 30
    @Persisted var dogs: List<Dog>
    @Persisted var favorite: Dog?
    @Persisted var tags: MutableSet<String>
    @Persisted var scores: List<Int>
    @Persisted var prices: Map<String, Double>
    @Persisted var address: Address?
    @Persisted var previousAddresses: List<Address>
    @Persisted var mood: Mood = .happy
    @Persisted var anything: AnyRealmValue
    @Persisted var balance: Decimal128
    @Persisted var born: Date?
    @Persisted var token: UUID?
    @Persisted var photo: Data?
    @Persisted var ratio: Float
    @Persisted var weight: Double?
    @Persisted var flag: Bool
    @Persisted var small: Int8
}
