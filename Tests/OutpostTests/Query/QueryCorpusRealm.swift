import Foundation
import Outpost
import OutpostCore
import OutpostCoreTesting
import OutpostTesting

/// A Realm file holding `QueryFixtures`' three people and three dogs as `QPerson`, `QDog` and
/// `QAddress` objects, converted from the fixture documents so both backends see the same data.
///
/// Dogs are inserted in reverse `_id` order, so a dog's rowid differs from its primary key (a query
/// comparing a link with a primary key must not compare rowids).
struct QueryCorpusRealm {
    let directory: TemporaryDirectory
    let realm: Realm

    static let insertionOrder = ["ada", "bob", "eli"]

    init(_ name: String = #function) throws {
        directory = TemporaryDirectory(name)
        realm = try Realm(configuration: directory.configuration(objectTypes: [QPerson.self, QDog.self, QAddress.self, QLocation.self]))
        let realm = self.realm
        try realm.write {
            var dogs: [Int64: QDog] = [:]
            for id in QueryFixtures.dogs.keys.sorted(by: >) {
                var fields = Self.swiftFields(QueryFixtures.dogs[id]!, dogs: [:])
                fields["owner"] = nil
                dogs[id] = realm.create(QDog.self, value: fields)
            }
            for key in Self.insertionOrder {
                realm.create(QPerson.self, value: Self.swiftFields(QueryFixtures.people[key]!, dogs: dogs))
            }
            for (id, document) in QueryFixtures.dogs {
                if case .link(_, .int(let personId))? = document["owner"] {
                    dogs[id]!.owner = realm.object(ofType: QPerson.self, forPrimaryKey: Int(personId))
                }
            }
        }
    }

    func remove() { directory.remove() }

    var people: Results<QPerson> { realm.objects(QPerson.self) }

    /// The fixture key (`ada`, `bob`, `eli`) of a person.
    static func key(of person: QPerson) -> String {
        QueryFixtures.people.first { $0.value["_id"] == .int(Int64(person._id)) }!.key
    }

    private static func swiftFields(_ document: OutpostCore.Document, dogs: [Int64: QDog]) -> [String: Any] {
        var fields = document.fields.mapValues { swiftValue($0, dogs: dogs) }
        // An unmanaged embedded object: `create` does not yet accept a nested dictionary for one
        // ("Can't set link to existing managed embedded object").
        if case .document(let address)? = document["address"] {
            let object = QAddress()
            if case .string(let city)? = address["city"] { object.city = city }
            if case .string(let street)? = address["street"] { object.street = street }
            fields["address"] = object
        }
        if case .document(let point)? = document["location"], case .array(let coordinates)? = point["coordinates"] {
            let object = QLocation()
            if case .string(let type)? = point["type"] { object.type = type }
            object.coordinates.append(objectsIn: coordinates.compactMap { if case .double(let d) = $0 { d } else { nil } })
            fields["location"] = object
        }
        return fields
    }

    private static func swiftValue(_ value: Value, dogs: [Int64: QDog]) -> Any {
        switch value {
        case .null: NSNull()
        case .bool(let v): v
        case .int(let v): Int(v)
        case .float(let v): v
        case .double(let v): v
        case .string(let v): v
        case .data(let v): v
        case .date(let v): v
        case .objectId(let v): v
        case .decimal128(let v): v
        case .uuid(let v): v
        case .array(let items): items.map { swiftValue($0, dogs: dogs) }
        case .document(let document): swiftFields(document, dogs: dogs)
        case .link(_, .int(let id)): dogs[id] as Any
        case .link: NSNull()
        }
    }
}
