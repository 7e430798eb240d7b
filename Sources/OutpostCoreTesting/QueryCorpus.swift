
/// One row of the query corpus: query text, the canonical text `QueryPrinter` writes for it, and
/// the fixture people (`QueryFixtures.people` keys) it matches.
public struct QueryCorpusCase: Sendable, CustomStringConvertible {
    public var text: String
    public var canonical: String
    public var matches: Set<String>
    public var description: String { text }

    /// A row whose text is already canonical.
    public init(_ text: String, _ matches: Set<String>) {
        self.init(text, text, matches)
    }

    public init(_ text: String, _ canonical: String, _ matches: Set<String>) {
        self.text = text
        self.canonical = canonical
        self.matches = matches
    }
}


/// The table of every operator and feature of the query language, one row each, reusable by any
/// backend that runs queries against `QueryFixtures` (the evaluator here; the client's SQL).
public enum QueryCorpus {
    public static let all: Set<String> = ["ada", "bob", "eli"]

    public static let cases: [QueryCorpusCase] = [
        // Comparison operators and their spellings.
        .init("age == 36", ["ada"]),
        .init("age = 36", "age == 36", ["ada"]),
        .init("age != 36", ["bob", "eli"]),
        .init("age <> 36", "age != 36", ["bob", "eli"]),
        .init("age < 25", ["bob"]),
        .init("age <= 25", ["bob", "eli"]),
        .init("age =< 25", "age <= 25", ["bob", "eli"]),
        .init("age > 25", ["ada"]),
        .init("age >= 25", ["ada", "eli"]),
        .init("age => 25", "age >= 25", ["ada", "eli"]),
        .init("18 < age", ["ada", "eli"]),
        .init("age between {17, 25}", "age BETWEEN {17, 25}", ["bob", "eli"]),
        .init("age IN {17, 36}", ["ada", "bob"]),
        .init("age in {}", "age IN {}", []),
        .init("'poet' IN tags", "\"poet\" IN tags", ["ada", "eli"]),
        // A string orders after null, as in realm-core; numbers never order against null.
        .init("nickname > nil", "nickname > NULL", ["bob"]),
        .init("nickname < nil", "nickname < NULL", []),
        .init("age > nil", "age > NULL", []),
        // Geospatial: GeoJSON points (longitude first) within a circle (radians), a box, a polygon.
        .init("location GEOWITHIN geoCircle([-0.1276, 51.5072], 0.01)", ["ada"]),
        .init("location geowithin geoBox([-1, 48], [3, 52])", "location GEOWITHIN geoBox([-1.0, 48.0], [3.0, 52.0])",
              ["ada", "bob"]),
        .init("location GEOWITHIN geoPolygon({[2.0, 48.0], [3.0, 48.0], [3.0, 49.0], [2.0, 49.0], [2.0, 48.0]})", ["bob"]),
        // String operators and options.
        .init("name BEGINSWITH 'A'", "name BEGINSWITH \"A\"", ["ada"]),
        .init("name beginswith 'a'", "name BEGINSWITH \"a\"", []),
        .init("name BEGINSWITH[c] \"a\"", ["ada"]),
        .init("name ENDSWITH \"ie\"", ["eli"]),
        .init("name CONTAINS[c] \"O\"", ["bob", "eli"]),
        .init("name CONTAINS \"o\"", ["bob", "eli"]),
        .init("name LIKE \"?o*\"", ["bob"]),
        .init("name LIKE \"A?a\"", ["ada"]),
        .init("name LIKE[c] \"*DIE\"", ["eli"]),
        .init("name LIKE[c] name", ["ada", "bob", "eli"]),  // a pattern from a property
        .init("nickname LIKE name", []),
        .init("name ==[c] \"ada\"", ["ada"]),
        .init("name ==[d] \"Elodie\"", ["eli"]),
        .init("name ==[cd] \"elodie\"", ["eli"]),
        .init("name =[dc] \"ELODIE\"", "name ==[cd] \"ELODIE\"", ["eli"]),
        .init("name !=[c] \"BOB\"", ["ada", "eli"]),
        .init("name BEGINSWITH[d] \"E\"", ["eli"]),
        .init("name == \"Élodie\"", ["eli"]),
        .init("tags CONTAINS \"o\"", ["ada", "eli"]),
        // Logic, precedence and parentheses.
        .init("age > 20 AND active == true", ["ada", "eli"]),
        .init("age > 20 && active == true", "age > 20 AND active == true", ["ada", "eli"]),
        .init("age < 20 or name == \"Ada\"", "age < 20 OR name == \"Ada\"", ["ada", "bob"]),
        .init("age < 20 || name == \"Ada\"", "age < 20 OR name == \"Ada\"", ["ada", "bob"]),
        .init("NOT age > 20", "NOT (age > 20)", ["bob"]),
        .init("!(age > 20)", "NOT (age > 20)", ["bob"]),
        .init("not not age > 30", "NOT (NOT (age > 30))", ["ada"]),
        .init(
            "age > 20 && active == false || name == \"Bob\"", "(age > 20 AND active == false) OR name == \"Bob\"",
            ["bob"]),
        .init(
            "active == true and (age < 30 or name == \"Ada\")", "active == true AND (age < 30 OR name == \"Ada\")",
            ["ada", "eli"]),
        .init(
            "age == 36 AND (name == \"Ada\" AND active == TRUE)", "age == 36 AND name == \"Ada\" AND active == true",
            ["ada"]),
        .init("((age == 17))", "age == 17", ["bob"]),
        .init("TRUEPREDICATE", all),
        .init("falsepredicate", "FALSEPREDICATE", []),
        .init("TRUEPREDICATE AND NOT FALSEPREDICATE", "TRUEPREDICATE AND NOT (FALSEPREDICATE)", all),
        // Null and booleans.
        .init("nickname == nil", "nickname == NULL", ["ada", "eli"]),
        .init("nickname != NULL", ["bob"]),
        .init("active == false", ["bob"]),
        .init("active != FALSE", "active != false", ["ada", "eli"]),
        // Links and embedded objects.
        .init("dog.name == \"Rex\"", ["ada"]),
        .init("dog.owner.name == \"Ada\"", ["ada"]),
        .init("dog == nil", "dog == NULL", ["bob"]),
        .init("dog == 1", ["ada"]),
        .init("address.city ==[c] \"paris\"", ["bob", "eli"]),
        .init("address.street == nil", "address.street == NULL", ["bob", "eli"]),
        // To-many key paths and quantifiers.
        .init("dogs.age > 5", ["ada"]),
        .init("ANY dogs.age > 5", ["ada"]),
        .init("SOME dogs.age > 5", "ANY dogs.age > 5", ["ada"]),
        .init("ALL dogs.age > 4", ["bob", "eli"]),
        .init("NONE dogs.age > 4", ["bob"]),
        .init("all tags IN {\"poet\", \"math\"}", "ALL tags IN {\"poet\", \"math\"}", ["ada", "bob"]),
        .init("tags == \"poet\"", ["ada", "eli"]),
        .init("tags ==[c] \"CHEF\"", ["eli"]),
        .init("dogs.name IN {\"Rover\", \"Fido\"}", ["ada", "eli"]),
        // Collection operators.
        .init("tags.@count > 1", ["ada", "eli"]),
        .init("tags.@size == 0", ["bob"]),
        .init("dogs.@count == 1", ["eli"]),
        .init("name.@size > 3", ["eli"]),
        .init("avatar.@count == 3", ["ada"]),
        .init("dogs.@avg.age > 4", ["ada", "eli"]),
        .init("dogs.@max.age == 7", ["ada"]),
        .init("dogs.@min.age == 3", ["ada"]),
        .init("dogs.@sum.age == 5", ["eli"]),
        .init("scores.@sum > 200", ["ada"]),
        .init("scores.@sum == 0", ["bob"]),
        .init("scores.@avg < 70", ["eli"]),
        .init("scores.@min < 70", ["eli"]),
        .init("scores.@max == 90", ["ada"]),
        // Subqueries.
        .init("SUBQUERY(dogs, $d, $d.age > 4).@count > 0", ["ada", "eli"]),
        .init(
            "subquery(dogs, $dog, $dog.age > 2 AND $dog.name BEGINSWITH 'R').@size == 1",
            "SUBQUERY(dogs, $dog, $dog.age > 2 AND $dog.name BEGINSWITH \"R\").@count == 1", ["ada", "eli"]),
        .init("SUBQUERY(tags, $t, $t CONTAINS[c] \"e\").@count == 2", ["eli"]),
        // Inside a subquery a key path without the variable is the element's (realm-core), here the dog's age.
        .init("SUBQUERY(dogs, $d, $d.owner.age > age).@count == 0", ["bob"]),
        // Maps.
        .init("prices[\"eur\"] > 6", ["ada"]),
        .init("prices['usd'] == nil", "prices[\"usd\"] == NULL", ["bob", "eli"]),
        .init("prices.eur == 5", ["eli"]),
        .init("prices.@keys == \"usd\"", ["ada"]),
        .init("prices.@values < 8", ["eli"]),
        .init("prices.@count == 0", ["bob"]),
        // Numbers across types.
        .init("height > 1.68", ["bob", "eli"]),
        .init("height == 1.8", ["bob"]),
        .init("weight == 60.5", ["ada"]),
        .init("weight < 56", ["eli"]),
        .init("age == 36.0", ["ada"]),
        .init("age > 3.6e1", "age > 36.0", []),
        .init("age > 35.5", ["ada"]),
        .init("height < 0x2", "height < 2", all),
        .init("age > -1", all),
        .init("height > -2.5e-3", "height > -0.0025", all),
        .init("height < inf", all),
        .init("height > -infinity", "height > -inf", all),
        .init("balance > decimal128(50)", ["ada"]),
        .init("balance == 0", ["eli"]),
        .init("balance < 0.5", ["bob", "eli"]),
        .init("balance BETWEEN {decimal128(-10), decimal128(1)}", ["bob", "eli"]),
        // Typed literals.
        .init("born == 2020-01-01@00:00:00", "born == T1577836800:0", ["ada"]),
        .init("born > T1577836800:0", ["bob", "eli"]),
        .init("born == 2020-01-01T00:00:00:500000000", "born == T1577836800:500000000", ["eli"]),
        .init("born < 2021-01-01@00:00:00", "born < T1609459200:0", ["ada", "eli"]),
        .init("oid == oid(507f1f77bcf86cd799439011)", ["ada"]),
        .init("oid == oid( 507F1F77BCF86CD799439011 )", "oid == oid(507f1f77bcf86cd799439011)", ["ada"]),
        .init("uuid == uuid(3B241101-E2BB-4255-8CAF-4136C566A962)", "uuid == uuid(3b241101-e2bb-4255-8caf-4136c566a962)",
              ["ada"]),
        .init("avatar == B64\"AQID\"", ["ada"]),
        .init("avatar BEGINSWITH B64\"AQ==\"", ["ada"]),
        .init("avatar == B64\"\"", ["bob"]),
        // Strings and escapes.
        .init("nickname == 'Bob\\u0062y'", "nickname == \"Bobby\"", ["bob"]),
        .init("name == \"Ada\\n\"", []),
        .init("name == 'Say \"hi\"\\t\\\\'", "name == \"Say \\\"hi\\\"\\t\\\\\"", []),
        // Suffixes.
        .init("age > 0 SORT(age ASC, name DESC)", all),
        .init("age > 0 sort(age ascending) limit(5) distinct(name)", "age > 0 SORT(age ASC) LIMIT(5) DISTINCT(name)", all),
        .init("TRUEPREDICATE DISTINCT(address.city, active) LIMIT(2)", all),
        .init("active == true SORT(dog.name DESCENDING)", "active == true SORT(dog.name DESC)", ["ada", "eli"]),
    ]
}
