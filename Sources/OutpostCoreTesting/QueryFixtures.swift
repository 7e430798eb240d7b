import Foundation
import OutpostCore

/// The fixture schema and documents the query corpus runs against: three people and three dogs.
///
/// Reusable by any query backend (evaluator, SQL generator): `schema` describes the classes,
/// `people` and `dogs` hold the objects (links are `.link(className:primaryKey:)` by `_id`).
public enum QueryFixtures {
    public static let schema = Schema([
        ObjectSchema(className: "Person", properties: [
            Property(name: "_id", type: .int, isPrimaryKey: true),
            Property(name: "name", type: .string),
            Property(name: "age", type: .int),
            Property(name: "height", type: .double),
            Property(name: "weight", type: .float),
            Property(name: "balance", type: .decimal128),
            Property(name: "active", type: .bool),
            Property(name: "nickname", type: .string, isOptional: true),
            Property(name: "tags", type: .string, collection: .list),
            Property(name: "scores", type: .int, collection: .list),
            Property(name: "dog", type: .object, isOptional: true, objectClassName: "Dog"),
            Property(name: "dogs", type: .object, collection: .list, objectClassName: "Dog"),
            Property(name: "address", type: .object, isOptional: true, objectClassName: "Address"),
            Property(name: "prices", type: .int, collection: .map),
            Property(name: "avatar", type: .data),
            Property(name: "born", type: .date),
            Property(name: "oid", type: .objectId, isOptional: true),
            Property(name: "uuid", type: .uuid, isOptional: true),
            Property(name: "location", type: .object, isOptional: true, objectClassName: "Location"),
        ]),
        ObjectSchema(className: "Dog", properties: [
            Property(name: "_id", type: .int, isPrimaryKey: true),
            Property(name: "name", type: .string),
            Property(name: "age", type: .int),
            Property(name: "owner", type: .object, isOptional: true, objectClassName: "Person"),
        ]),
        ObjectSchema(className: "Address", properties: [
            Property(name: "city", type: .string),
            Property(name: "street", type: .string, isOptional: true),
        ], isEmbedded: true),
        // A GeoJSON point, as realm-core's GEOWITHIN reads one: longitude first.
        ObjectSchema(className: "Location", properties: [
            Property(name: "type", type: .string),
            Property(name: "coordinates", type: .double, collection: .list),
        ], isEmbedded: true),
    ])

    public static let adaObjectId = "507f1f77bcf86cd799439011"
    public static let adaUUID = "3b241101-e2bb-4255-8caf-4136c566a962"

    public static func dog(_ id: Int64) -> Value { .link(className: "Dog", primaryKey: .int(id)) }
    public static func person(_ id: Int64) -> Value { .link(className: "Person", primaryKey: .int(id)) }
    public static func decimal(_ text: String) -> Value { .decimal128(try! Decimal128(string: text)) }
    public static func point(latitude: Double, longitude: Double) -> Value {
        .document(["type": .string("Point"), "coordinates": .array([.double(longitude), .double(latitude)])])
    }

    /// Ada (36, two dogs, in London), Bob (17, no dogs, empty collections, in Paris), Élodie (25, one dog, no
    /// `nickname` and no `location` field).
    public static let people: [String: Document] = [
        "ada": [
            "_id": .int(1), "name": .string("Ada"), "age": .int(36), "height": .double(1.65),
            "weight": .float(60.5), "balance": decimal("100.25"), "active": .bool(true), "nickname": .null,
            "tags": .array([.string("math"), .string("poet")]), "scores": .array([.int(90), .int(85), .int(77)]),
            "dog": dog(1), "dogs": .array([dog(1), dog(2)]),
            "address": .document(["city": .string("London"), "street": .string("Baker St")]),
            "prices": .document(["eur": .int(10), "usd": .int(12)]), "avatar": .data(Data([1, 2, 3])),
            "born": .date(Date(timeIntervalSince1970: 1_577_836_800)),
            "oid": .objectId(try! ObjectId(string: adaObjectId)), "uuid": .uuid(UUID(uuidString: adaUUID)!),
            "location": point(latitude: 51.5072, longitude: -0.1276),
        ],
        "bob": [
            "_id": .int(2), "name": .string("Bob"), "age": .int(17), "height": .double(1.8),
            "weight": .float(80), "balance": decimal("-5"), "active": .bool(false), "nickname": .string("Bobby"),
            "tags": .array([]), "scores": .array([]), "dog": .null, "dogs": .array([]),
            "address": .document(["city": .string("Paris")]), "prices": .document([:]), "avatar": .data(Data()),
            "born": .date(Date(timeIntervalSince1970: 1_623_760_200)), "oid": .null, "uuid": .null,
            "location": point(latitude: 48.8566, longitude: 2.3522),
        ],
        "eli": [
            "_id": .int(3), "name": .string("Élodie"), "age": .int(25), "height": .double(1.7),
            "weight": .float(55.25), "balance": decimal("0"), "active": .bool(true),
            "tags": .array([.string("poet"), .string("Chef")]), "scores": .array([.int(60)]),
            "dog": dog(3), "dogs": .array([dog(3)]),
            "address": .document(["city": .string("paris")]), "prices": .document(["eur": .int(5)]),
            "avatar": .data(Data([255])), "born": .date(Date(timeIntervalSinceReferenceDate: 599_529_600.5)),
            "oid": .null, "uuid": .null,
        ],
    ]

    /// Rex (3, owned by Ada), Fido (7), Rover (5, owned by Élodie).
    public static let dogs: [Int64: Document] = [
        1: ["_id": .int(1), "name": .string("Rex"), "age": .int(3), "owner": person(1)],
        2: ["_id": .int(2), "name": .string("Fido"), "age": .int(7), "owner": .null],
        3: ["_id": .int(3), "name": .string("Rover"), "age": .int(5), "owner": person(3)],
    ]

    /// Follows `Dog` and `Person` links by `_id`.
    public static let resolveLink: QueryEvaluator.LinkResolver = { className, primaryKey in
        guard case .int(let id) = primaryKey else { return nil }
        switch className {
        case "Dog": return dogs[id]
        case "Person": return people.values.first { $0["_id"] == .int(id) }
        default: return nil
        }
    }

    public static let evaluator = QueryEvaluator(resolveLink: resolveLink)

    /// The names of the people matching `text`, evaluated with `evaluator`.
    public static func matchingPeople(_ text: String, arguments: [Value] = []) throws -> Set<String> {
        let predicate = try QueryParser.parsePredicate(text).binding(arguments)
        return try Set(people.filter { try evaluator.matches(predicate, $0.value) }.keys)
    }
}
