import OutpostCoreTesting
import Foundation
import Outpost

// The query corpus's fixture schema (`QueryFixtures.schema`: Person, Dog, Address) as Outpost
// classes. Property names are the fixture's, so the corpus text runs unchanged.

final class QPerson: Object {
    @Persisted(primaryKey: true) var _id: Int
    @Persisted var name: String
    @Persisted var age: Int
    @Persisted var height: Double
    @Persisted var weight: Float
    @Persisted var balance: Decimal128
    @Persisted var active: Bool
    @Persisted var nickname: String?
    @Persisted var tags: List<String>
    @Persisted var scores: List<Int>
    @Persisted var dog: QDog?
    @Persisted var dogs: List<QDog>
    @Persisted var address: QAddress?
    @Persisted var prices: Map<String, Int>
    @Persisted var avatar: Data
    @Persisted var born: Date
    @Persisted var oid: ObjectId?
    @Persisted var uuid: UUID?
    @Persisted var location: QLocation?
}

final class QLocation: EmbeddedObject {
    @Persisted var type: String
    @Persisted var coordinates: List<Double>
}

final class QDog: Object {
    @Persisted(primaryKey: true) var _id: Int
    @Persisted var name: String
    @Persisted var age: Int
    @Persisted var owner: QPerson?
}

final class QAddress: EmbeddedObject {
    @Persisted var city: String
    @Persisted var street: String?
}
