import Foundation
import GRDB
import Testing

@testable import OutpostServer

/// The commit's direct row writer (SQLite's C API under GRDB's prepared statements).
@Suite struct DirectRowsTests {
    @Test func writesTextAndIntegersAsGRDBWouldAndReportsFailures() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT NOT NULL, b TEXT)")
            let insert = try db.cachedStatement(sql: "INSERT INTO t (id, a, b) VALUES (?, ?, ?)")
            let texts = ["", "plain", "é \"quoted\" \\ 😀", String(repeating: "long ", count: 10_000)]
            for (i, text) in texts.enumerated() {
                try DirectRows.run(insert, [.integer(Int64(i)), .text(text), .text("b\(i)")], in: db)
            }
            // UTF-8 bytes (the history's changeset text) are stored as the same text.
            for (i, text) in texts.enumerated() {
                try DirectRows.run(insert, [.integer(Int64(50 + i)), .utf8(Array(text.utf8)), .text("b\(i)")], in: db)
            }
            #expect(try String.fetchAll(db, sql: "SELECT a FROM t WHERE id >= 50 ORDER BY id") == texts)
            #expect(try String.fetchOne(db, sql: "SELECT typeof(a) FROM t WHERE id = 50") == "text")
            try db.execute(sql: "DELETE FROM t WHERE id >= 50")
            let rows = try Row.fetchAll(db, sql: "SELECT id, a, b FROM t ORDER BY id")
            #expect(rows.map { $0["a"] as String } == texts, "strings stored byte for byte, the empty one as text")
            #expect(try String.fetchOne(db, sql: "SELECT typeof(a) FROM t WHERE id = 0") == "text")
            #expect(rows.map { $0["b"] as String } == texts.indices.map { "b\($0)" })

            // A failing step throws GRDB's error and writes nothing of the row.
            #expect {
                try DirectRows.run(insert, [.integer(1), .text("again"), .text("x")], in: db)
            } throws: { error in
                (error as? DatabaseError)?.resultCode == .SQLITE_CONSTRAINT
            }
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM t") == texts.count)
            // The statement is left reset: GRDB and the writer can both use it again.
            try insert.execute(arguments: [100, "grdb", nil])
            try DirectRows.run(insert, [.integer(101), .text("direct"), .text("y")], in: db)
            #expect(try String.fetchAll(db, sql: "SELECT a FROM t WHERE id >= 100 ORDER BY id") == ["grdb", "direct"])
        }
    }

    /// A constant first parameter bound once, then rows of three texts bound in place (the documents' commit).
    @Test func aConstantParameterStaysBoundAcrossRowsOfThreeTexts() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE d (app TEXT NOT NULL, c TEXT NOT NULL, k TEXT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (app, c, k))")
            let put = try db.cachedStatement(sql: "INSERT INTO d (app, c, k, body) VALUES (?, ?, ?, ?)")
            // Whatever GRDB bound before is replaced.
            try put.execute(arguments: ["other", "c", "k0", "{}"])
            let app = String(repeating: "app-é-", count: 3)
            try DirectRows.bindConstant(put, app, at: 1, in: db)
            let rows = [("Items", "k1", "{\"a\":1}"), ("Items", "", ""), ("Ünïcode 😀", "k2", String(repeating: "x", count: 50_000))]
            for (c, k, body) in rows { try DirectRows.run(put, texts: c, k, body, from: 2, in: db) }
            let stored = try Row.fetchAll(db, sql: "SELECT app, c, k, body FROM d WHERE app <> 'other' ORDER BY rowid")
            #expect(stored.map { $0["app"] as String } == Array(repeating: app, count: rows.count))
            #expect(stored.map { [$0["c"] as String, $0["k"] as String, $0["body"] as String] } == rows.map { [$0.0, $0.1, $0.2] })
            #expect(try String.fetchOne(db, sql: "SELECT typeof(k) FROM d WHERE c = 'Items' AND k = ''") == "text")

            // A failing row throws GRDB's error, writes nothing, and the constant is still bound for the next row.
            #expect {
                try DirectRows.run(put, texts: "Items", "k1", "again", from: 2, in: db)
            } throws: { error in
                (error as? DatabaseError)?.resultCode == .SQLITE_CONSTRAINT
            }
            try DirectRows.run(put, texts: "Items", "k3", "{}", from: 2, in: db)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM d WHERE app = ?", arguments: [app]) == rows.count + 1)
            #expect(try String.fetchOne(db, sql: "SELECT body FROM d WHERE k = 'k1'") == "{\"a\":1}")
        }
    }
}
