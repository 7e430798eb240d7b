@testable import Outpost
import OutpostCoreTesting
import OutpostTesting
import Testing

/// The SQL (and parameters) generated for one query per operator family, as literal text, so that
/// changes to SQL generation show up in review. Regenerate by printing `sql` when a change is intended.
@Suite struct QuerySQLSnapshotTests {
    struct Snapshot: CustomTestStringConvertible, Sendable {
        var query: String
        var sql: String
        var parameters: [SQLiteValue]
        var testDescription: String { query }

        init(_ query: String, _ sql: String, _ parameters: [SQLiteValue]) {
            self.query = query
            self.sql = sql
            self.parameters = parameters
        }
    }

    static let snapshots: [Snapshot] = [
        .init("age != 36",
              "SELECT t0.rowid AS rid FROM \"QPerson\" t0 WHERE t0.\"age\" IS NOT ?1 ORDER BY t0.rowid",
              [.integer(36)]),
        .init("name BEGINSWITH[c] \"a\"",
              "SELECT t0.rowid AS rid FROM \"QPerson\" t0 WHERE (t0.\"name\" IS NOT NULL AND (length(?1) = 0 OR"
            + " substr(outpost_fold(t0.\"name\", 1), 1, length(?1)) = ?1)) ORDER BY t0.rowid",
              [.text("a")]),
        .init("name LIKE \"?o*\"",
              "SELECT t0.rowid AS rid FROM \"QPerson\" t0 WHERE (t0.\"name\" IS NOT NULL AND t0.\"name\" GLOB ?1)"
            + " ORDER BY t0.rowid",
              [.text("?o*")]),
        .init("age IN {17, 36}",
              "SELECT t0.rowid AS rid FROM \"QPerson\" t0 WHERE (t0.\"age\" IS ?1 OR t0.\"age\" IS ?2) ORDER BY"
            + " t0.rowid",
              [.integer(17), .integer(36)]),
        .init("age between {17, 25}",
              "SELECT t0.rowid AS rid FROM \"QPerson\" t0 WHERE ((t0.\"age\" >= ?1 AND t0.\"age\" IS NOT NULL) AND"
            + " (t0.\"age\" <= ?2 AND t0.\"age\" IS NOT NULL)) ORDER BY t0.rowid",
              [.integer(17), .integer(25)]),
        .init("nickname == nil",
              "SELECT t0.rowid AS rid FROM \"QPerson\" t0 WHERE t0.\"nickname\" IS NULL ORDER BY t0.rowid",
              []),
        .init("dog.name == \"Rex\"",
              "SELECT t0.rowid AS rid FROM \"QPerson\" t0 WHERE (SELECT t1.\"name\" FROM \"QDog\" t1 WHERE t1.rowid"
            + " = t0.\"dog\") IS ?1 ORDER BY t0.rowid",
              [.text("Rex")]),
        .init("dog == 1",
              "SELECT t0.rowid AS rid FROM \"QPerson\" t0 WHERE (SELECT t1.\"_id\" FROM \"QDog\" t1 WHERE t1.rowid ="
            + " t0.\"dog\") IS ?1 ORDER BY t0.rowid",
              [.integer(1)]),
        .init("ALL dogs.age > 4",
              "SELECT t0.rowid AS rid FROM \"QPerson\" t0 WHERE NOT EXISTS (SELECT 1 FROM json_each(t0.\"dogs\")"
            + " t1 JOIN \"QDog\" t2 ON t2.rowid = t1.value WHERE 1 AND NOT ((t2.\"age\" > ?1 AND t2.\"age\" IS NOT"
            + " NULL))) ORDER BY t0.rowid",
              [.integer(4)]),
        .init("'poet' IN tags",
              "SELECT t0.rowid AS rid FROM \"QPerson\" t0 WHERE EXISTS (SELECT 1 FROM json_each(t0.\"tags\") t1"
            + " WHERE 1 AND ?1 IS t1.value) ORDER BY t0.rowid",
              [.text("poet")]),
        .init("dogs.@avg.age > 4",
              "SELECT t0.rowid AS rid FROM \"QPerson\" t0 WHERE coalesce((SELECT avg(t2.\"age\") FROM"
            + " json_each(t0.\"dogs\") t1 JOIN \"QDog\" t2 ON t2.rowid = t1.value WHERE 1) > ?1, 0) ORDER BY"
            + " t0.rowid",
              [.real(4.0)]),
        .init("name.@size > 3",
              "SELECT t0.rowid AS rid FROM \"QPerson\" t0 WHERE coalesce(length(CAST(t0.\"name\" AS BLOB)) > ?1,"
            + " 0) ORDER BY t0.rowid",
              [.integer(3)]),
        .init("prices[\"eur\"] > 6",
              "SELECT t0.rowid AS rid FROM \"QPerson\" t0 WHERE coalesce(json_extract(t0.\"prices\", ?1) > ?2, 0)"
            + " ORDER BY t0.rowid",
              [.text("$.\"eur\""), .integer(6)]),
        .init("prices.@keys == \"usd\"",
              "SELECT t0.rowid AS rid FROM \"QPerson\" t0 WHERE EXISTS (SELECT 1 FROM json_each(t0.\"prices\") t1"
            + " WHERE 1 AND t1.key IS ?1) ORDER BY t0.rowid",
              [.text("usd")]),
        .init("SUBQUERY(dogs, $d, $d.owner.age > age).@count == 0",
              "SELECT t0.rowid AS rid FROM \"QPerson\" t0 WHERE (SELECT count(*) FROM json_each(t0.\"dogs\") t1"
            + " JOIN \"QDog\" t2 ON t2.rowid = t1.value WHERE 1 AND coalesce((SELECT t3.\"age\" FROM \"QPerson\" t3"
            + " WHERE t3.rowid = t2.\"owner\") > t2.\"age\", 0)) IS ?1 ORDER BY t0.rowid",
              [.integer(0)]),
        .init("balance BETWEEN {decimal128(-10), decimal128(1)}",
              "SELECT t0.rowid AS rid FROM \"QPerson\" t0 WHERE ((t0.\"balance\" COLLATE DECIMAL128 >= ?1 AND"
            + " t0.\"balance\" IS NOT NULL) AND (t0.\"balance\" COLLATE DECIMAL128 <= ?2 AND t0.\"balance\" IS NOT"
            + " NULL)) ORDER BY t0.rowid",
              [.text("-10"), .text("1")]),
        .init("age > 0 sort(age ascending) limit(5) distinct(name)",
              "SELECT t0.rowid AS rid FROM \"QPerson\" t0 WHERE t0.rowid IN (SELECT rid FROM (SELECT t0.rowid AS"
            + " rid, row_number() OVER (PARTITION BY t0.\"name\" ORDER BY t0.\"age\" ASC, t0.rowid) AS rn FROM"
            + " \"QPerson\" t0 WHERE t0.rowid IN (SELECT t0.rowid AS rid FROM \"QPerson\" t0 WHERE t0.rowid IN"
            + " (SELECT t0.rowid AS rid FROM \"QPerson\" t0 WHERE (t0.\"age\" > ?1 AND t0.\"age\" IS NOT NULL))"
            + " ORDER BY t0.\"age\" ASC, t0.rowid LIMIT 5)) WHERE rn = 1) ORDER BY t0.\"age\" ASC, t0.rowid",
              [.integer(0)]),
    ]

    @Test(arguments: snapshots)
    func generatesTheSnapshottedSQL(_ snapshot: Snapshot) throws {
        let fixture = try QueryCorpusRealm()
        defer { fixture.remove() }
        let results = try fixture.people.filter(checked: snapshot.query, [])
        let (sql, parameters) = try results.query.sql(table: results.table, realm: results.instance)
        #expect(sql == snapshot.sql)
        #expect(parameters == snapshot.parameters)
    }
}
