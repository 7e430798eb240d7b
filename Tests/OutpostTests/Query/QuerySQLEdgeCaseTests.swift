import OutpostCoreTesting
import Foundation
@testable import Outpost
import OutpostTesting
import Testing

/// Edge cases beyond the corpus (nulls under NOT, empty strings and collections, key path against
/// key path, nested quantifiers, maps, sizes, typed values), each run through SQL and checked
/// against the core evaluator on the same fixtures, and against the expected people.
@Suite struct QuerySQLEdgeCaseTests {
    static let cases: [QueryCorpusCase] = [
        // NULL stays false (not unknown) under NOT.
        .init("NOT (nickname > 'A')", ["ada", "eli"]),
        .init("NOT (nickname BEGINSWITH 'B')", ["ada", "eli"]),
        .init("NOT (nickname LIKE 'B*')", ["ada", "eli"]),
        .init("NOT (nickname IN {'Bobby'})", ["ada", "eli"]),
        .init("NOT (dog.age > 4)", ["ada", "bob"]),
        .init("NOT (prices['usd'] > 11)", ["bob", "eli"]),
        .init("NOT (address.street CONTAINS 'x')", QueryCorpus.all),
        .init("nickname != 'Bobby'", ["ada", "eli"]),
        .init("nickname IN {'Bobby', nil}", QueryCorpus.all),
        .init("nickname BEGINSWITH nil", ["ada", "eli"]),
        .init("nickname > nil", ["bob"]),  // a string orders after null, as in realm-core (Realm's QueryTests)
        // A property against itself: two nulls are equal, so `>=` and `<=` hold and `>` does not (Realm's QueryTests).
        .init("dog.age >= dog.age", QueryCorpus.all),
        .init("dog.age <= dog.age", QueryCorpus.all),
        .init("dog.age > dog.age", []),
        .init("nickname >= nickname", QueryCorpus.all),
        // Empty strings and options.
        .init("name BEGINSWITH ''", QueryCorpus.all),
        .init("name ENDSWITH ''", QueryCorpus.all),
        .init("name CONTAINS ''", QueryCorpus.all),
        .init("nickname CONTAINS ''", ["bob"]),
        .init("name LIKE '*'", QueryCorpus.all),
        .init("name LIKE ''", []),
        .init("name LIKE '[A]da'", []),
        .init("name ENDSWITH[c] 'DIE'", ["eli"]),
        .init("name CONTAINS[cd] 'E'", ["eli"]),
        .init("name > 'B'", ["bob", "eli"]),
        // Lists of scalars.
        .init("tags BEGINSWITH 'p'", ["ada", "eli"]),
        .init("ALL tags BEGINSWITH 'p'", ["bob"]),
        .init("NONE tags ==[c] 'chef'", ["ada", "bob"]),
        .init("ANY tags IN {'Chef'}", ["eli"]),
        .init("'Chef' IN tags", ["eli"]),
        .init("NOT ('poet' IN tags)", ["bob"]),
        .init("scores BETWEEN {80, 86}", ["ada"]),
        .init("ALL scores > 70", ["ada", "bob"]),
        // BETWEEN.
        .init("age BETWEEN {25, 36}", ["ada", "eli"]),
        .init("height BETWEEN {1.7, 1.8}", ["bob", "eli"]),
        .init("NOT (age BETWEEN {17, 25})", ["ada"]),
        .init("nickname BETWEEN {'A', 'Z'}", ["bob"]),
        // Links and lists of objects.
        .init("NOT (ANY dogs.age > 5)", ["bob", "eli"]),
        .init("dogs.owner.name == 'Ada'", ["ada"]),
        .init("ALL dogs.owner.age > 20", ["bob", "eli"]),
        .init("dog.owner == nil", ["bob"]),
        .init("dog.owner != nil", ["ada", "eli"]),
        .init("dog != nil", ["ada", "eli"]),
        .init("dog == 3", ["eli"]),
        .init("dogs == 2", ["ada"]),
        .init("dog.owner.dog.name == 'Rover'", ["eli"]),
        // Key path against key path.
        .init("dog.age < age", ["ada", "eli"]),
        .init("dogs.age > age", []),
        .init("age > weight", []),
        .init("height < weight", QueryCorpus.all),
        .init("balance > age", ["ada"]),
        .init("balance < height", ["bob", "eli"]),
        .init("scores.@max > age", ["ada", "eli"]),
        .init("ANY scores > age", ["ada", "eli"]),
        .init("ALL scores > age", QueryCorpus.all),
        .init("name == nickname", []),
        .init("name != nickname", QueryCorpus.all),
        .init("dog.owner.age == age", ["ada", "eli"]),
        // Collection operators on empty collections.
        .init("scores.@min == nil", ["bob"]),
        .init("scores.@avg == nil", ["bob"]),
        .init("NOT (scores.@max > 80)", ["bob", "eli"]),
        .init("dogs.@sum.age == 0", ["bob"]),
        .init("dogs.@avg.age == nil", ["bob"]),
        .init("dogs.@count == 0", ["bob"]),
        // Maps.
        .init("prices.@values > 11", ["ada"]),
        .init("ALL prices.@values > 6", ["ada", "bob"]),
        .init("prices.@keys BEGINSWITH 'e'", ["ada", "eli"]),
        .init("prices.@sum > 20", ["ada"]),
        .init("prices.@max == 12", ["ada"]),
        .init("prices['eur'] BETWEEN {5, 10}", ["ada", "eli"]),
        .init("prices.usd > 11", ["ada"]),
        .init("prices.@size == 1", ["eli"]),
        // Sizes: UTF-8 bytes of strings (Realm's StringData::size()), bytes of binary.
        .init("name.@size == 6", []),
        .init("name.@size == 7", ["eli"]),
        .init("nickname.@size == 5", ["bob"]),
        .init("avatar.@size == 0", ["bob"]),
        .init("avatar != nil", QueryCorpus.all),
        // Subqueries.
        .init("SUBQUERY(scores, $s, $s > 80).@count == 2", ["ada"]),
        .init("SUBQUERY(tags, $t, $t.@size > 3).@count == 2", ["ada", "eli"]),
        .init("SUBQUERY(dogs, $d, $d.name BEGINSWITH 'R' AND $d.age < age).@count > 0", []),  // age: the dog's
        .init("SUBQUERY(dogs, $d, $d.name BEGINSWITH 'R' AND age < 5).@count > 0", ["ada"]),
        .init("SUBQUERY(dogs, $d, SUBQUERY($d.owner.tags, $t, $t == 'poet').@count > 0).@count == 1", ["ada", "eli"]),
        .init("NOT (SUBQUERY(dogs, $d, $d.age > 4).@count > 0)", ["bob"]),
        // Decimal128, dates, ObjectId, UUID, binary.
        .init("balance >= 0", ["ada", "eli"]),
        .init("balance == 100.25", ["ada"]),
        .init("balance IN {0, -5}", ["bob", "eli"]),
        .init("balance BETWEEN {0, 100.25}", ["ada", "eli"]),
        .init("balance != 0", ["ada", "bob"]),
        .init("balance > decimal128(1e1)", ["ada"]),
        .init("born > 2020-06-01@00:00:00", ["bob"]),
        .init("born > 2020-01-01@00:00:00", ["bob", "eli"]),
        .init("born BETWEEN {2020-01-01@00:00:00, 2021-01-01@00:00:00}", ["ada", "eli"]),
        .init("oid == nil", ["bob", "eli"]),
        .init("oid != oid(507f1f77bcf86cd799439011)", ["bob", "eli"]),
        .init("uuid != nil", ["ada"]),
        .init("avatar CONTAINS B64\"Ag==\"", ["ada"]),
        .init("avatar ENDSWITH B64\"Aw==\"", ["ada"]),
        .init("avatar BEGINSWITH B64\"\"", QueryCorpus.all),
        .init("avatar ENDSWITH B64\"\"", QueryCorpus.all),
        .init("avatar CONTAINS B64\"\"", QueryCorpus.all),
        .init("avatar > B64\"AQ==\"", ["ada", "eli"]),
        .init("weight > 60", ["ada", "bob"]),
        .init("weight == 55.25", ["eli"]),
    ]

    @Test(arguments: cases)
    func agreesWithTheEvaluator(_ row: QueryCorpusCase) throws {
        let fixture = try QueryCorpusRealm()
        defer { fixture.remove() }
        let results = try fixture.people.filter(checked: row.text, [])
        let (sql, _) = try results.query.sql(table: results.table, realm: results.instance)
        let keys = Set(results.map(QueryCorpusRealm.key(of:)))
        #expect(keys == row.matches, "SQL: \(sql)")
        #expect(try QueryFixtures.matchingPeople(row.text) == row.matches)
    }

    /// Realm's `@size` of a null string is null (so never 0); the evaluator counts a null as 0,
    /// because for documents a missing collection field must count as empty.
    @Test func sizeOfANullStringIsNull() throws {
        let fixture = try QueryCorpusRealm()
        defer { fixture.remove() }
        #expect(fixture.people.filter("nickname.@size == 0").count == 0)
        #expect(fixture.people.filter("nickname.@size == nil").map(QueryCorpusRealm.key(of:)) == ["ada", "eli"])
    }

    // MARK: Arguments

    @Test func argumentsOfEveryKind() throws {
        let fixture = try QueryCorpusRealm()
        defer { fixture.remove() }
        let people = fixture.people
        func keys(_ results: Results<QPerson>) -> Set<String> { Set(results.map(QueryCorpusRealm.key(of:))) }
        let rex = fixture.realm.object(ofType: QDog.self, forPrimaryKey: 1)!
        let born = Date(timeIntervalSince1970: 1_600_000_000)
        #expect(keys(people.filter("age > %@", 20)) == ["ada", "eli"])
        #expect(keys(people.filter("age > $0 AND name != $1", 20, "Ada")) == ["eli"])
        #expect(keys(people.filter("name IN %@", ["Ada", "Bob"])) == ["ada", "bob"])
        #expect(keys(people.filter("age BETWEEN %@", [17, 25])) == ["bob", "eli"])
        #expect(keys(people.filter("%@ IN tags", "poet")) == ["ada", "eli"])
        #expect(keys(people.filter("dog == %@", rex)) == ["ada"])
        #expect(keys(people.filter("dogs == %@", rex)) == ["ada"])
        #expect(keys(people.filter("ANY dogs IN %@", [rex])) == ["ada"])
        // A Realm collection as the argument is its elements (Realm's `IN %@` with `Results`).
        let youngDogs = fixture.realm.objects(QDog.self).filter("age < 4")
        #expect(keys(people.filter("ANY dogs IN %@", youngDogs)) == ["ada"])
        #expect(keys(people.filter("dog IN %@", youngDogs)) == ["ada"])
        #expect(keys(people.filter("balance > %@", Decimal128(1))) == ["ada"])
        #expect(keys(people.filter("oid == %@", try ObjectId(string: QueryFixtures.adaObjectId))) == ["ada"])
        #expect(keys(people.filter("uuid == %@", UUID(uuidString: QueryFixtures.adaUUID)!)) == ["ada"])
        #expect(keys(people.filter("born < %@", born)) == ["ada", "eli"])
        #expect(keys(people.filter("nickname == %@", NSNull())) == ["ada", "eli"])
        #expect(keys(people.filter("nickname == %@", String?.none as Any)) == ["ada", "eli"])
        #expect(keys(people.filter("avatar == %@", Data([255]))) == ["eli"])
        #expect(keys(people.filter("height > %@", Float(1.69))) == ["bob", "eli"])
        #expect(keys(people.filter("name ==[c] %@", "ÉLODIE")) == ["eli"])
    }

    @Test func chainedFiltersAndSuffixes() throws {
        let fixture = try QueryCorpusRealm()
        defer { fixture.remove() }
        let people = fixture.people
        func keys(_ results: Results<QPerson>) -> [String] { results.map(QueryCorpusRealm.key(of:)) }
        #expect(keys(people.filter("age > %@", 18).filter("name BEGINSWITH %@", "É")) == ["eli"])
        #expect(keys(people.sorted(byKeyPath: "age", ascending: false)) == ["ada", "eli", "bob"])
        // A later sort is the primary order; the earlier one breaks its ties.
        #expect(keys(people.sorted(byKeyPath: "name").sorted(byKeyPath: "active")) == ["bob", "ada", "eli"])
        #expect(keys(people.filter("TRUEPREDICATE SORT(name DESC) SORT(active ASC)")) == ["bob", "eli", "ada"])
        // DISTINCT keeps the first object of each group in the current order.
        #expect(keys(people.filter("TRUEPREDICATE SORT(age DESC) DISTINCT(active)")) == ["ada", "bob"])
        #expect(keys(people.filter("TRUEPREDICATE DISTINCT(active)")) == ["ada", "bob"])
        #expect(keys(people.filter("TRUEPREDICATE SORT(name ASC) DISTINCT(active) SORT(age ASC)")) == ["bob", "ada"])
        // LIMIT keeps the first n in the current order; what follows applies to those.
        #expect(keys(people.filter("TRUEPREDICATE SORT(age DESC) LIMIT(2)")) == ["ada", "eli"])
        #expect(keys(people.filter("TRUEPREDICATE SORT(age DESC) LIMIT(2) SORT(name ASC)")) == ["ada", "eli"])
        #expect(keys(people.filter("TRUEPREDICATE LIMIT(2) DISTINCT(active)")) == ["ada", "bob"])
        #expect(keys(people.filter("TRUEPREDICATE LIMIT(0)")) == [])
        #expect(keys(people.filter("TRUEPREDICATE SORT(balance DESC)")) == ["ada", "eli", "bob"])
        // Bob has no dog: a broken link sorts last ascending, as in realm-core.
        #expect(keys(people.filter("TRUEPREDICATE SORT(dog.age ASC)")) == ["ada", "eli", "bob"])
        #expect(keys(people.filter("TRUEPREDICATE SORT(dog.age DESC)")) == ["bob", "eli", "ada"])
        #expect(keys(people.filter("TRUEPREDICATE SORT(prices['eur'] DESC)")) == ["ada", "eli", "bob"])
        #expect(keys(people.filter("TRUEPREDICATE DISTINCT(address.city)")) == ["ada", "bob", "eli"])
    }
}
