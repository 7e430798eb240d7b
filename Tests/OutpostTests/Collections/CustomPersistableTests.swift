import Foundation
import Outpost
import OutpostTesting
import Testing

/// `CustomPersistable` / `FailableCustomPersistable`: properties, collections and maps of types stored as a type
/// Realm supports, read back from the file, queried on the persisted form.
@Suite struct CustomPersistableTests {
    let dir = TemporaryDirectory()

    func realm() throws -> Realm {
        try Realm(configuration: dir.configuration(objectTypes: [CPHolder.self, CPPointObject.self]))
    }

    /// A type mapped to an embedded object: several values in one property, a list of them.
    @Test func valuesMappedToEmbeddedObjects() throws {
        defer { dir.remove() }
        let realm = try realm()
        let holder = CPHolder()
        holder.id = 1
        holder.point = CPPoint(x: 1, y: 2)
        holder.line.append(objectsIn: [CPPoint(x: 0, y: 0), CPPoint(x: 3, y: 4)])
        try realm.write { realm.add(holder) }
        #expect(holder.point == CPPoint(x: 1, y: 2))
        #expect(Array(holder.line) == [CPPoint(x: 0, y: 0), CPPoint(x: 3, y: 4)])
        try realm.write { holder.point = CPPoint(x: 5, y: 6) }
        #expect(holder.point == CPPoint(x: 5, y: 6))
        #expect(realm.objects(CPHolder.self).filter("point.x == 5").count == 1)
        #expect(CPHolder().point == CPPoint(x: 0, y: 0))
    }

    /// A value mapped to an embedded object compares member by member (Realm's memberwise equality), alone and
    /// through a list (one element must match every member); an unmanaged object argument equals no stored object.
    @Test func queriesCompareValuesMappedToObjectsMemberByMember() throws {
        defer { dir.remove() }
        let realm = try realm()
        try realm.write {
            for (id, point, line) in [(1, CPPoint(x: 1, y: 2), [CPPoint(x: 1, y: 5), CPPoint(x: 7, y: 2)]),
                                      (2, CPPoint(x: 1, y: 3), [CPPoint(x: 1, y: 2)]), (3, CPPoint(x: 9, y: 9), [])] {
                let holder = CPHolder()
                holder.id = id
                holder.point = point
                holder.line.append(objectsIn: line)
                for (index, point) in line.enumerated() { holder.places["p\(index)"] = point }
                realm.add(holder)
            }
        }
        let holders = realm.objects(CPHolder.self)
        func ids(_ query: (Query<CPHolder>) -> Query<Bool>) -> [Int] { holders.where(query).map(\.id).sorted() }
        #expect(ids { $0.point == CPPoint(x: 1, y: 2) } == [1])
        #expect(ids { $0.point != CPPoint(x: 1, y: 2) } == [2, 3])
        // x 1 and y 2 are both in holder 1's list, but in different elements.
        #expect(ids { $0.line == CPPoint(x: 1, y: 2) } == [2])
        #expect(ids { $0.line != CPPoint(x: 1, y: 2) } == [1])  // non-empty, no element equal
        // The same through a map's values.
        #expect(ids { $0.places.values == CPPoint(x: 1, y: 2) } == [2])
        #expect(ids { $0.places.values != CPPoint(x: 1, y: 2) } == [1])
        let (text, arguments) = (Query<CPHolder>._constructForTesting().point == CPPoint(x: 1, y: 2))._constructPredicate()
        #expect(text == "(point == %@)")
        #expect(arguments.first as? CPPoint == CPPoint(x: 1, y: 2))

        let links = try Realm(configuration: dir.configuration(objectTypes: [QPerson.self, QDog.self, QAddress.self, QLocation.self]))
        try links.write {
            let dog = links.create(QDog.self, value: ["_id": 1, "name": "Rex"])
            links.create(QPerson.self, value: ["_id": 1, "name": "Ann", "dog": dog, "dogs": [dog]])
            links.create(QPerson.self, value: ["_id": 2, "name": "Bo"])
        }
        let stray = QDog()
        let people = links.objects(QPerson.self)
        #expect(people.where { $0.dog == stray }.count == 0)
        #expect(people.where { $0.dog != stray }.count == 2)
        #expect(people.where { $0.dogs == stray }.count == 0)
        #expect(people.where { $0.dogs != stray }.count == 1)  // any element differs: only a non-empty list
        #expect(people.filter("dog == %@", stray).count == 0)
    }

    /// As Realm takes them: `init(value:)` and `create` accept a custom-persistable value or its persisted form
    /// (an embedded object, a raw value), and a persisted value a failable type refuses is nil in an optional.
    @Test func inputTakesWrappedOrPersistedValues() throws {
        defer { dir.remove() }
        let pointObject = CPPointObject(value: [3.0, 4.0])
        let fromObject = CPHolder(value: ["id": 1, "point": pointObject, "line": [pointObject]])
        #expect(fromObject.point == CPPoint(x: 3, y: 4))
        #expect(Array(fromObject.line) == [CPPoint(x: 3, y: 4)])
        let fromWrapper = CPHolder(value: ["id": 2, "point": CPPoint(x: 5, y: 6), "line": [CPPoint(x: 7, y: 8)],
                                           "score": CPScore(value: 4)])
        #expect(fromWrapper.point == CPPoint(x: 5, y: 6))
        #expect(fromWrapper.score == CPScore(value: 4))
        #expect(Array(fromWrapper.line) == [CPPoint(x: 7, y: 8)])

        let refused = CPHolder(value: ["id": 3, "optionalEmail": "!bad"])  // CPEmail refuses it
        #expect(refused.optionalEmail == nil)
        // A null link for a non-optional value mapped to an object: the value made from a new object (Realm's).
        #expect(CPHolder(value: ["id": 6, "point": NSNull()]).point == CPPoint(x: 0, y: 0))

        let realm = try realm()
        try realm.write {
            realm.create(CPHolder.self, value: ["id": 4, "point": CPPoint(x: 1, y: 1), "line": [CPPoint(x: 2, y: 2)]])
            realm.create(CPHolder.self, value: ["id": 5, "point": CPPointObject(value: [9.0, 9.0])])
        }
        #expect(realm.object(ofType: CPHolder.self, forPrimaryKey: 4)?.point == CPPoint(x: 1, y: 1))
        #expect(realm.object(ofType: CPHolder.self, forPrimaryKey: 4).map { Array($0.line) } == [CPPoint(x: 2, y: 2)])
        #expect(realm.object(ofType: CPHolder.self, forPrimaryKey: 5)?.point == CPPoint(x: 9, y: 9))
    }

    @Test func valuesRoundTripThroughTheFile() throws {
        defer { dir.remove() }
        let holder = CPHolder()
        holder.id = 1
        holder.score = CPScore(value: 7)
        holder.email = CPEmail(persistedValue: "ann@example.com")!
        holder.optionalScore = CPScore(value: 3)
        holder.scores.append(objectsIn: [CPScore(value: 2), CPScore(value: 1)])
        holder.emailSet.insert(CPEmail(persistedValue: "a@b")!)
        holder.emailMap["work"] = CPEmail(persistedValue: "w@b")!
        let realm = try realm()
        try realm.write { realm.add(holder) }

        let reopened = try #require(realm.object(ofType: CPHolder.self, forPrimaryKey: 1))
        #expect(reopened.score == CPScore(value: 7))
        #expect(reopened.email.address == "ann@example.com")
        #expect(reopened.optionalScore == CPScore(value: 3))
        #expect(reopened.optionalEmail == nil)
        #expect(Array(reopened.scores) == [CPScore(value: 2), CPScore(value: 1)])
        #expect(Array(reopened.scores.sorted()) == [CPScore(value: 1), CPScore(value: 2)])  // by the persisted Int
        #expect(reopened.scores.max() == CPScore(value: 2))
        #expect(Array(reopened.emailSet) == [CPEmail(persistedValue: "a@b")!])
        #expect(reopened.emailMap["work"] == CPEmail(persistedValue: "w@b"))
        // Stored as the persisted type: a text query compares an int.
        #expect(realm.objects(CPHolder.self).filter("score > 5").count == 1)
        // A new object's non-optional property holds the mapping of the persisted type's default.
        #expect(CPHolder().score == CPScore(value: 0))
        #expect(CPHolder().email.address == "")
    }

    @Test func queriesRunOnThePersistedForm() throws {
        defer { dir.remove() }
        let realm = try realm()
        try realm.write {
            for n in 1...5 {
                let holder = CPHolder()
                holder.id = n
                holder.score = CPScore(value: n * 10)
                holder.email = CPEmail(persistedValue: "user\(n)@example.com")!
                realm.add(holder)
            }
        }
        let all = realm.objects(CPHolder.self)
        #expect(all.where { $0.score == CPScore(value: 20) }.map(\.id) == [2])
        #expect(all.where { $0.score > CPScore(value: 30) }.map(\.id) == [4, 5])
        #expect(all.where { $0.score.persistableValue <= 20 }.map(\.id) == [1, 2])
        #expect(all.where { $0.email.persistableValue.starts(with: "user3") }.map(\.id) == [3])
        #expect(all.where { $0.email == CPEmail(persistedValue: "user5@example.com")! }.map(\.id) == [5])
        #expect(all.filter("score IN %@", [10, 50]).map(\.id) == [1, 5])
    }

    @Test func aValueThatDoesNotConvertReadsAsNilWhereOptional() throws {
        defer { dir.remove() }
        let realm = try realm()
        let holder = CPHolder()
        holder.id = 1
        try realm.write { realm.add(holder) }
        // Written through the persisted form, as another client (or an older schema) could have.
        try realm.write { holder["optionalEmail"] = "!not an address" }
        #expect(holder.optionalEmail == nil)
        try realm.write { holder["optionalEmail"] = "ok@example.com" }
        #expect(holder.optionalEmail?.address == "ok@example.com")
    }

    @Test func aValueThatDoesNotConvertTrapsWhereNonOptional() async throws {
        defer { dir.remove() }
        let path = dir.file("trap.realm").path
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [path = path as String] in
            var configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: path))
            configuration.objectTypes = [CPHolder.self]
            let realm = try Realm(configuration: configuration)
            let holder = CPHolder()
            try realm.write {
                realm.add(holder)
                holder["email"] = "!bad"
            }
            _ = holder.email
        }
        let text = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(text.contains("Failed to convert persisted value '!bad' to type 'CPEmail' in a non-optional context."), "\(text)")
    }
}

/// A number kept as an `Int`.
struct CPScore: CustomPersistable, Comparable {
    typealias PersistedType = Int
    var value: Int
    init(value: Int) { self.value = value }
    init(persistedValue: Int) { value = persistedValue }
    var persistableValue: Int { value }
    static func < (lhs: CPScore, rhs: CPScore) -> Bool { lhs.value < rhs.value }
}

/// An address kept as a `String`; text starting with "!" does not convert (the empty default does).
struct CPEmail: FailableCustomPersistable {
    typealias PersistedType = String
    var address: String
    init?(persistedValue: String) {
        guard !persistedValue.hasPrefix("!") else { return nil }
        address = persistedValue
    }
    var persistableValue: String { address }
}

final class CPHolder: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var score: CPScore
    @Persisted var email: CPEmail
    @Persisted var optionalScore: CPScore?
    @Persisted var optionalEmail: CPEmail?
    @Persisted var scores: List<CPScore>
    @Persisted var emailSet: MutableSet<CPEmail>
    @Persisted var emailMap: Map<String, CPEmail>
    @Persisted var point: CPPoint
    @Persisted var line: List<CPPoint>
    @Persisted var places: Map<String, CPPoint?>
}

final class CPPointObject: EmbeddedObject {
    @Persisted var x: Double
    @Persisted var y: Double
}

/// A point kept as an embedded object; equal and hashed by its coordinates (the default hash would hash the
/// embedded object, by identity).
struct CPPoint: CustomPersistable {
    typealias PersistedType = CPPointObject
    var x: Double
    var y: Double
    init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
    init(persistedValue: CPPointObject) { self.init(x: persistedValue.x, y: persistedValue.y) }
    var persistableValue: CPPointObject { CPPointObject(value: [x, y]) }
    func hash(into hasher: inout Hasher) {
        hasher.combine(x)
        hasher.combine(y)
    }
}
