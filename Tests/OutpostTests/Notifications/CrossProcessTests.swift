import Foundation
import OutpostTesting
import Testing

@testable import Outpost

/// Commits the way another process would: through its own SQLite connection, unknown to this process's
/// registry, writing the row and the history entry as `commitWrite` does.
struct ForeignWriter {
    let connection: SQLiteConnection

    init(path: String) throws {
        connection = try SQLiteConnection(path: path)
    }

    /// Inserts a pet and records the insertion in the history.
    func insertPet(named name: String) throws {
        try connection.execute("BEGIN IMMEDIATE")
        try connection.cached("INSERT INTO \"NPet\" (name, age) VALUES (?, 1)").run([.text(name)])
        var changes = ChangeSet()
        changes.insert("NPet", connection.lastInsertRowid)
        try connection.cached(
            "INSERT INTO __outpost_history (version, changes) "
                + "VALUES ((SELECT coalesce(max(version), 0) + 1 FROM __outpost_history), ?)"
        ).run([.text(changes.encoded)])
        try connection.execute("COMMIT")
    }
}

@Suite struct CrossProcessTests {
    @Test func commitsFromAnotherConnectionAreNoticed() throws {
        let f = try NotificationFixture()
        defer { f.remove() }
        let path = f.configuration.resolvedPath
        var seen: [Seen] = []
        let token = f.realm.objects(NPet.self).observe { change in seen.append(Seen(change) { $0.count }) }
        var notifications: [Realm.Notification] = []
        let realmToken = f.realm.observe { notification, _ in notifications.append(notification) }
        defer {
            token.invalidate()
            realmToken.invalidate()
        }
        #expect(spinRunLoop { !seen.isEmpty })
        #expect(FileWatcher.shared.isWatching(path: path))

        let writer = try ForeignWriter(path: path)
        try writer.insertPet(named: "Rex")
        #expect(spinRunLoop { seen.count == 2 })
        #expect(seen == [.initial(count: 0), .update(deletions: [], insertions: [0], modifications: [])])
        #expect(notifications == [.didChange])
        #expect(f.realm.objects(NPet.self).first?.name == "Rex")
    }

    @Test func watcherStopsWhenTheFileIsNoLongerOpen() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let configuration = directory.configuration(objectTypes: [NPet.self, NPerson.self])
        let path = configuration.resolvedPath
        do {
            let realm = try Realm(configuration: configuration)
            #expect(FileWatcher.shared.isWatching(path: path))
            _ = realm
        }
        let deadline = Date().addingTimeInterval(2)
        while FileWatcher.shared.isWatching(path: path) && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(!FileWatcher.shared.isWatching(path: path))
    }
}
