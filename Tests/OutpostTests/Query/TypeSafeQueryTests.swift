import Foundation
import Outpost
import OutpostCore
import OutpostTesting
import Testing

/// One builder expression, the query text it must print as (the same text the parser reads), and
/// the owners it must match in `QueryFixture`.
private struct BuilderCase {
    let text: String
    let ids: [Int]
    let query: (Query<Owner>) -> Query<Bool>
    let line: Int

    init(_ text: String, _ ids: [Int], line: Int = #line, _ query: @escaping (Query<Owner>) -> Query<Bool>) {
        self.text = text
        self.ids = ids
        self.query = query
        self.line = line
    }
}

private func ownerCases() -> [BuilderCase] { [
    // Comparisons
    BuilderCase(#"name == "Ann""#, [1]) { $0.name == "Ann" },
    BuilderCase(#"name != "Ann""#, [2, 3]) { $0.name != "Ann" },
    BuilderCase("age > 25", [1, 3]) { $0.age > 25 },
    BuilderCase("age >= 30", [1, 3]) { $0.age >= 30 },
    BuilderCase("age < 30", [2]) { $0.age < 30 },
    BuilderCase("age <= 30", [1, 2]) { $0.age <= 30 },
    BuilderCase("nickname == NULL", [2]) { $0.nickname == nil },
    BuilderCase("nickname != NULL", [1, 3]) { $0.nickname != nil },
    BuilderCase("weight > 50.0", [1]) { $0.weight > 50.0 },
    // Strings order by their UTF-8 bytes, as in Realm ("C" < "c", "e" < "é").
    BuilderCase(#"name > "Bob""#, [3]) { $0.name > "Bob" },
    BuilderCase(#"name >= "Bob""#, [2, 3]) { $0.name >= "Bob" },
    BuilderCase(#"name < "B""#, [1]) { $0.name < "B" },
    BuilderCase(#"name <= "Ann""#, [1]) { $0.name <= "Ann" },
    BuilderCase(#"name > "Ce""#, [3]) { $0.name > "Ce" },
    BuilderCase(#"name < "Cz""#, [1, 2]) { $0.name < "Cz" },  // "é" is 0xC3 0xA9, after "z"
    BuilderCase(#"nickname > "A""#, [3]) { $0.nickname > "A" },
    BuilderCase("weight == NULL", [2, 3]) { $0.weight == nil },
    // Compound and Bool properties
    BuilderCase("age > 25 AND flag == true", [1, 3]) { $0.age > 25 && $0.flag },
    BuilderCase(#"age < 25 OR name == "Céline""#, [2, 3]) { $0.age < 25 || $0.name == "Céline" },
    BuilderCase("NOT (age > 25)", [2]) { !($0.age > 25) },
    BuilderCase("flag == true", [1, 3]) { $0.flag },
    BuilderCase("flag == false", [2]) { !$0.flag },
    BuilderCase(#"(age > 40 OR name == "Bob") AND flag == true"#, [3]) {
        ($0.age > 40 || $0.name == "Bob") && $0.flag
    },
    // Links, embedded objects and collections of objects
    BuilderCase(#"favorite.name == "Rex""#, [1]) { $0.favorite.name == "Rex" },
    BuilderCase(#"address.city == "Porto""#, [2]) { $0.address.city == "Porto" },
    BuilderCase(#"ANY dogs.name == "Rex""#, [1]) { $0.dogs.name == "Rex" },
    BuilderCase("ANY dogs.age > 4", [1]) { $0.dogs.age > 4 },
    BuilderCase(#"ANY dogs.name BEGINSWITH "F""#, [1]) { $0.dogs.name.starts(with: "F") },
    // Strings
    BuilderCase(#"name CONTAINS "e""#, [3]) { $0.name.contains("e") },
    BuilderCase(#"name CONTAINS[cd] "CE""#, [3]) { $0.name.contains("CE", options: [.caseInsensitive, .diacriticInsensitive]) },
    BuilderCase(#"name BEGINSWITH[c] "b""#, [2]) { $0.name.starts(with: "b", options: .caseInsensitive) },
    BuilderCase(#"name ENDSWITH "nn""#, [1]) { $0.name.ends(with: "nn") },
    BuilderCase(#"name LIKE "?o*""#, [2]) { $0.name.like("?o*") },
    BuilderCase(#"name LIKE[c] "a*""#, [1]) { $0.name.like("a*", caseInsensitive: true) },
    BuilderCase(#"name ==[c] "ann""#, [1]) { $0.name.equals("ann", options: .caseInsensitive) },
    BuilderCase(#"name !=[c] "ann""#, [2, 3]) { $0.name.notEquals("ann", options: .caseInsensitive) },
    BuilderCase(#"nickname BEGINSWITH "c""#, [3]) { $0.nickname.starts(with: "c") },
    // Ranges and IN
    BuilderCase("age BETWEEN {20, 30}", [1, 2]) { $0.age.contains(20...30) },
    BuilderCase("age >= 20 AND age < 30", [2]) { $0.age.contains(20..<30) },
    BuilderCase(#"name IN {"Ann", "Bob"}"#, [1, 2]) { $0.name.in(["Ann", "Bob"]) },
    BuilderCase("age IN {20, 45}", [2, 3]) { $0.age.in([20, 45]) },
    // Collections of values
    BuilderCase(#""a" IN tags"#, [1]) { $0.tags.contains("a") },
    BuilderCase(#"ANY tags IN {"b", "c"}"#, [1, 2]) { $0.tags.containsAny(in: ["b", "c"]) },
    BuilderCase("ANY scores > 8", [2]) { $0.scores > 8 },
    BuilderCase("ANY scores == 2", [1]) { $0.scores == 2 },
    BuilderCase("scores.@min >= 1 AND scores.@max <= 3", [1]) { $0.scores.contains(1...3) },
    BuilderCase("scores.@min >= 1 AND scores.@max < 9", [1]) { $0.scores.contains(1..<9) },
    // Counts and aggregates
    BuilderCase("dogs.@count > 1", [1]) { $0.dogs.count > 1 },
    BuilderCase("dogs.@count == 0", [3]) { $0.dogs.count == 0 },
    BuilderCase("tags.@count == 1", [2]) { $0.tags.count == 1 },
    BuilderCase("dogs.@avg.age > 3", [1]) { $0.dogs.age.avg > 3 },
    BuilderCase("dogs.@max.age < 4", [2]) { $0.dogs.age.max < 4 },
    BuilderCase("dogs.@min.age == 3", [1]) { $0.dogs.age.min == 3 },
    BuilderCase("dogs.@sum.age >= 8", [1]) { $0.dogs.age.sum >= 8 },
    BuilderCase("scores.@sum > 10", [2]) { $0.scores.sum > 10 },
    BuilderCase("scores.@min == 1", [1]) { $0.scores.min == 1 },
    BuilderCase("scores.@max >= 9", [2]) { $0.scores.max >= 9 },
    BuilderCase("scores.@avg > 2", [2]) { $0.scores.avg > 2 },
    // Maps
    BuilderCase(#"prices["eur"] > 1.0"#, [1]) { $0.prices["eur"] > 1 },
    BuilderCase(#"ANY prices.@keys == "gbp""#, [2]) { $0.prices.keys == "gbp" },
    BuilderCase(#"ANY prices.@keys CONTAINS "us""#, [1]) { $0.prices.keys.contains("us") },
    BuilderCase("ANY prices.@values > 1.8", [1]) { $0.prices.values > 1.8 },
    BuilderCase("0.5 IN prices", [2]) { $0.prices.contains(0.5) },
    BuilderCase("ANY prices IN {0.5, 2.0}", [1, 2]) { $0.prices.containsAny(in: [0.5, 2.0]) },
    BuilderCase("prices.@count == 2", [1]) { $0.prices.count == 2 },
    BuilderCase("prices.@max > 1.8", [1]) { $0.prices.max > 1.8 },
    // Enums compare by raw value
    BuilderCase(#"mood == "grumpy""#, [1]) { $0.mood == .grumpy },
    BuilderCase(#"mood != "grumpy""#, [2, 3]) { $0.mood != .grumpy },
    BuilderCase(#"mood BEGINSWITH "h""#, [2, 3]) { $0.mood.rawValue.starts(with: "h") },
    BuilderCase(#"mood IN {"grumpy"}"#, [1]) { $0.mood.in([.grumpy]) },
    // Subqueries
    BuilderCase("SUBQUERY(dogs, $col1, $col1.age > 2).@count >= 2", [1]) { ($0.dogs.age > 2).count >= 2 },
    BuilderCase(#"SUBQUERY(dogs, $col1, $col1.age < 4 AND $col1.name != "Rex").@count == 1"#, [2]) {
        ($0.dogs.age < 4 && $0.dogs.name != "Rex").count == 1
    },
    BuilderCase("SUBQUERY(scores, $col1, $col1 > 1).@count == 2", [1, 2]) { ($0.scores > 1).count == 2 },
] }

@Suite struct TypeSafeQueryTests {
    @Test func builderPrintsWhatTheParserReadsAndMatchesTheSameRows() throws {
        let fixture = try QueryFixture()
        defer { fixture.remove() }
        let owners = fixture.realm.objects(Owner.self)
        for c in ownerCases() {
            let location = SourceLocation(fileID: #fileID, filePath: #filePath, line: c.line, column: 1)
            let built = c.query(Query<Owner>._constructForTesting())._queryText
            let parsed = try QueryParser.parsePredicate(c.text)
            #expect(built == parsed.description, sourceLocation: location)
            #expect(built == c.text, sourceLocation: location)
            let viaBuilder = owners.where(c.query).map(\.id).sorted()
            #expect(viaBuilder == c.ids, "\(c.text)", sourceLocation: location)
            let viaText = owners.filter(c.text).map(\.id).sorted()
            #expect(viaText == c.ids, "text: \(c.text)", sourceLocation: location)
        }
    }

    /// A chain of conditions built with `&&` or `||` becomes one flat AND or OR, in order, however long; a short
    /// one matches the same rows as its text.
    @Test func longChainsAreFlat() throws {
        let query = Query<Owner>._constructForTesting()
        var and = query.age != 0
        var or = query.age == 0
        for i in 1..<20_000 {
            and = and && query.age != i
            or = or || query.age == i
        }
        guard case .and(let conditions) = and._predicate.node, case .or(let alternatives) = or._predicate.node else {
            Issue.record("not flat: \(and._queryText.prefix(60)), \(or._queryText.prefix(60))")
            return
        }
        #expect(conditions.count == 20_000 && alternatives.count == 20_000)
        #expect(conditions.last == (try QueryParser.parsePredicate("age != 19999")))
        #expect(alternatives.first == (try QueryParser.parsePredicate("age == 0")))
        let fixture = try QueryFixture()
        defer { fixture.remove() }
        let ages = (0..<200).map { $0 * 3 }
        let owners = fixture.realm.objects(Owner.self)
        let text = ages.map { "age == \($0)" }.joined(separator: " OR ")
        let viaBuilder = owners.where { q in ages.dropFirst().reduce(q.age == ages[0]) { $0 || q.age == $1 } }.map(\.id)
        #expect(viaBuilder.contains(1))  // Ann is 30
        #expect(viaBuilder.sorted() == owners.filter(text).map(\.id).sorted())
    }

    @Test func seedPageSample() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration())
        try realm.write {
            for (name, complexity) in [("Learn Realm", 3), ("Fix the bug", 7), ("Write docs", 4)] {
                let item = Item()
                item.ownerId = "user-1"
                item.itemName = name
                item.complexity = complexity
                realm.add(item)
            }
        }
        let easy = realm.objects(Item.self).where { $0.complexity <= 4 }
        #expect(Set(easy.map(\.itemName)) == ["Learn Realm", "Write docs"])
        // Live, like any Results.
        try realm.write { realm.objects(Item.self).where { $0.itemName == "Fix the bug" }.first!.complexity = 2 }
        #expect(easy.count == 3)
    }

    @Test func objectsCompareByIdentityThroughArguments() throws {
        let fixture = try QueryFixture()
        defer { fixture.remove() }
        let rex = fixture.rex
        let query = Query<Owner>._constructForTesting().favorite == rex
        #expect(query._queryText == "favorite == $0")
        #expect(query._queryText == (try QueryParser.parsePredicate("favorite == $0")).description)
        #expect(fixture.realm.objects(Owner.self).where { $0.favorite == rex }.map(\.id) == [1])
        #expect(fixture.realm.objects(Owner.self).where { $0.favorite == rex || $0.name == "Bob" }.count == 2)
        #expect(fixture.realm.objects(Owner.self).where { $0.favorite != nil }.map(\.id) == [1])
    }

    @Test func linkingObjectsAndChainedFilters() throws {
        let fixture = try QueryFixture()
        defer { fixture.remove() }
        let dogs = fixture.realm.objects(Dog.self)
        let query = Query<Dog>._constructForTesting().owners.name == "Ann"
        #expect(query._queryText == #"ANY owners.name == "Ann""#)
        #expect(Set(dogs.where { $0.owners.name == "Ann" }.map(\.name)) == ["Rex", "Fido"])
        // where on LinkingObjects, and where chained after filter.
        #expect(fixture.rex.owners.where { $0.age > 25 }.map(\.id) == [1])
        #expect(fixture.rex.owners.where { $0.age < 25 }.isEmpty)
        let chained = fixture.realm.objects(Owner.self).filter("age > 25").where { $0.flag }.where { $0.dogs.count == 0 }
        #expect(chained.map(\.id) == [3])
    }

    @Test func enumsWithIntegerRawValuesOrder() throws {
        let fixture = try QueryFixture()
        defer { fixture.remove() }
        let tasks = fixture.realm.objects(QBTask.self)
        let root = Query<QBTask>._constructForTesting()
        #expect((root.level > .low)._queryText == "level > 1")
        #expect((root.optionalLevel == nil)._queryText == "optionalLevel == NULL")
        #expect((root.optionalLevel >= .medium)._queryText == "optionalLevel >= 2")
        #expect(tasks.where { $0.level > .low }.map(\.id).sorted() == [2, 3])
        #expect(tasks.where { $0.level.rawValue.contains(1...2) }.map(\.id).sorted() == [1, 2])
        #expect(tasks.where { $0.optionalLevel >= .medium }.map(\.id) == [2])
        #expect(tasks.where { $0.optionalLevel == nil }.map(\.id) == [1])
        #expect(tasks.where { $0.level.rawValue < 3 }.count == 2)
        // String raw values order as strings: angry < calm < happy.
        #expect((root.mood > .calm)._queryText == "mood > \"calm\"")
        #expect(tasks.where { $0.mood > .calm }.map(\.id) == [3])
        #expect(tasks.where { $0.mood <= .calm }.map(\.id).sorted() == [1, 2])
        #expect(tasks.sorted(byKeyPath: "mood").map(\.id) == [2, 1, 3])
    }

    @Test func nonPersistedKeyPathTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = Query<QBNote>._constructForTesting().scratch == "x"
        }
    }

    @Test func comparingTwoProperties() throws {
        let root = Query<Owner>._constructForTesting()
        #expect((root.age == root.age)._queryText == "age == age")
        #expect((root.name.starts(with: root.name, options: .caseInsensitive))._queryText == "name BEGINSWITH[c] name")
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration())
        try realm.write {
            realm.create(Owner.self, value: ["id": 1, "name": "Ann", "age": 30])
            realm.create(Owner.self, value: ["id": 2, "name": "Bob", "age": 2])
        }
        #expect(realm.objects(Owner.self).where { $0.age == $0.age }.count == 2)
        #expect(realm.objects(Owner.self).where { $0.age > $0.id }.map(\.name) == ["Ann"])
    }

    @Test func malformedQueryTextThrowsWithCheckedFilter() throws {
        let fixture = try QueryFixture()
        defer { fixture.remove() }
        let owners = fixture.realm.objects(Owner.self)
        #expect(throws: QueryError.self) { try owners.filter(checked: "age >", []) }
        #expect(throws: QueryError.self) { try owners.filter(checked: "noSuchProperty == 1", []) }
    }
}
