import Foundation
import Outpost
import OutpostServer
import OutpostServerTesting
import Testing

/// The model of the convergence runs: every kind of field a random operation can change.
final class ConvergenceItem: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var name: String
    @Persisted var count: Int
    @Persisted var score: Double
    @Persisted var note: String?
    @Persisted var tags: List<String>
    @Persisted var numbers: List<Int>
}

/// One object's fields, as a client or the server holds them.
struct ConvergenceState: Equatable, CustomStringConvertible {
    var id: String
    var name: String
    var count: Int64
    var score: Double
    var note: String?
    var tags: [String]
    var numbers: [Int64]

    init(_ item: ConvergenceItem) {
        id = item._id.stringValue
        name = item.name
        count = Int64(item.count)
        score = item.score
        note = item.note
        tags = Array(item.tags)
        numbers = item.numbers.map { Int64($0) }
    }

    /// A server document; nil (with the reason) when a field is missing or of the wrong kind.
    init(document: OutpostCore.Document) throws {
        func fail(_ field: String) -> ConvergenceMismatch {
            ConvergenceMismatch(description: "server document \(document) has a bad \(field)")
        }
        guard case .objectId(let id)? = document["_id"] else { throw fail("_id") }
        guard case .string(let name)? = document["name"] else { throw fail("name") }
        guard case .int(let count)? = document["count"] else { throw fail("count") }
        guard case .double(let score)? = document["score"] else { throw fail("score") }
        guard case .array(let tags)? = document["tags"], case .array(let numbers)? = document["numbers"] else {
            throw fail("list")
        }
        self.id = id.stringValue
        self.name = name
        self.count = count
        self.score = score
        switch document["note"] {
        case nil, .null?: note = nil
        case .string(let text)?: note = text
        default: throw fail("note")
        }
        self.tags = try tags.map { if case .string(let s) = $0 { return s } else { throw fail("tags") } }
        self.numbers = try numbers.map { if case .int(let n) = $0 { return n } else { throw fail("numbers") } }
    }

    var description: String {
        "\(id.suffix(6)) name=\(name) count=\(count) score=\(score) note=\(note ?? "nil") tags=\(tags) numbers=\(numbers)"
    }
}

struct ConvergenceMismatch: Error, CustomStringConvertible {
    let description: String
}

/// Convergence (issue #4, Reliability): several clients — three users, one of them with a second device (a second
/// file) — make random creates, updates, deletes and list operations while being suspended and resumed at random,
/// against a real server (HTTP + WebSocket on 127.0.0.1, SQLite storage). Once every client is connected again and
/// has uploaded and downloaded everything, every client holds exactly the server's documents, and the server holds
/// exactly the objects created and not deleted.
@Suite struct ConvergenceTests {
    /// Five fixed seeds; `OUTPOST_CONVERGENCE_SEEDS=<n>` runs seeds 1…n instead (and `OUTPOST_CONVERGENCE_STEPS`
    /// sets the steps per run), for a longer hunt.
    static let seeds: [UInt64] = ProcessInfo.processInfo.environment["OUTPOST_CONVERGENCE_SEEDS"]
        .flatMap { UInt64($0) }.map { Array(1...$0) } ?? [1, 2, 3, 0xC0FFEE, 20_251_121]

    @Test(arguments: seeds)
    func randomEditsWhileDisconnectedConverge(seed: UInt64) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("outpost-convergence-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = try SQLiteStorage(path: directory.appendingPathComponent("server.sqlite").path)
        do {
            try await withTestServer(configuration: .development(appId: "convergence"), storage: storage) { server in
                try await withClientApp(server) { app in
                    try await ConvergenceRun(seed: seed, server: server, app: app).run()
                }
            }
        } catch {
            try? await storage.close()
            throw error
        }
        try await storage.close()
    }
}

/// One seeded run of ``ConvergenceTests``.
struct ConvergenceRun {
    let seed: UInt64
    let server: TestServer
    let app: App
    /// Operations (transactions and connectivity changes) across all clients.
    var steps = ProcessInfo.processInfo.environment["OUTPOST_CONVERGENCE_STEPS"].flatMap { Int($0) } ?? 60

    func run() async throws {
        var rng = SplitMix64(seed: seed)
        let reports = SyncReports()
        reports.install(on: app)
        var realms: [Realm] = []
        for n in 0..<3 {
            let email = "user\(n)@example.com"
            try await app.emailPasswordAuth.registerUser(email: email, password: "password\(n)")
            let user = try await app.login(credentials: .emailPassword(email: email, password: "password\(n)"))
            var config = user.flexibleSyncConfiguration(initialSubscriptions: { subscriptions in
                subscriptions.append(QuerySubscription<ConvergenceItem>(name: "all"))
            })
            config.objectTypes = [ConvergenceItem.self]
            realms.append(try await Realm(configuration: config, downloadBeforeOpen: .always))
            if n == 0 {  // the first user's second device
                config.fileURL = config.fileURL!.deletingLastPathComponent().appendingPathComponent("second-device.realm")
                realms.append(try await Realm(configuration: config, downloadBeforeOpen: .always))
            }
        }
        var suspended = Set<Int>()
        var created = Set<ObjectId>()
        var deleted = Set<ObjectId>()
        var log: [String] = []

        for step in 0..<steps {
            let c = rng.int(realms.count)
            let realm = realms[c]
            if rng.chance(12) {
                if suspended.remove(c) != nil {
                    realm.syncSession!.resume()
                    log.append("\(step): client \(c) resumes")
                } else {
                    suspended.insert(c)
                    realm.syncSession!.suspend()
                    log.append("\(step): client \(c) suspends")
                }
            } else {
                realm.refresh()
                let operations = 1 + rng.int(3)
                var done: [String] = []
                try realm.write {
                    for _ in 0..<operations {
                        done.append(Self.randomOperation(realm, &rng, created: &created, deleted: &deleted))
                    }
                }
                log.append("\(step): client \(c): " + done.joined(separator: "; "))
            }
            if rng.chance(30) { try await Task.sleep(for: .milliseconds(rng.int(15))) }
        }

        for c in suspended { realms[c].syncSession!.resume() }
        let context = "seed \(seed)"
        do {
            for round in 1...2 {
                for (c, realm) in realms.enumerated() {
                    let session = realm.syncSession!
                    try await withDeadline(.seconds(20), "\(context): client \(c) upload (round \(round))") {
                        try await session.wait(for: .upload)
                    }
                }
                for (c, realm) in realms.enumerated() {
                    let session = realm.syncSession!
                    try await withDeadline(.seconds(20), "\(context): client \(c) download (round \(round))") {
                        try await session.wait(for: .download)
                    }
                }
            }
        } catch {
            let sessions = realms.enumerated().map { c, realm in
                "client \(c): state \(realm.syncSession!.state), connection \(realm.syncSession!.connectionState)"
            }
            throw ConvergenceMismatch(description: "\(error)\n\(sessions.joined(separator: "\n"))\n\(log.joined(separator: "\n"))")
        }

        let serverStates = try await server.storage.documents(appId: server.appId, collection: "ConvergenceItem")
            .map(ConvergenceState.init(document:))
        let expectedIds = created.subtracting(deleted).map(\.stringValue).sorted()
        let history = log.joined(separator: "\n")
        #expect(serverStates.map(\.id).sorted() == expectedIds,
                "\(context): the server must hold exactly the objects created and not deleted\n\(history)")
        let serverById = Dictionary(uniqueKeysWithValues: serverStates.map { ($0.id, $0) })
        for (c, realm) in realms.enumerated() {
            realm.refresh()
            let states = realm.objects(ConvergenceItem.self).map(ConvergenceState.init)
            let clientById = Dictionary(uniqueKeysWithValues: states.map { ($0.id, $0) })
            let differences = Set(serverById.keys).union(clientById.keys).sorted().compactMap { id -> String? in
                let (s, l) = (serverById[id], clientById[id])
                return s == l ? nil : "  server: \(s?.description ?? "absent")\n  client: \(l?.description ?? "absent")"
            }
            #expect(differences.isEmpty,
                    "\(context): client \(c) differs from the server:\n\(differences.joined(separator: "\n"))\n\(history)")
        }
        #expect(reports.errors.isEmpty, "\(context): unexpected sync errors \(reports.errors)")
        if ProcessInfo.processInfo.environment["OUTPOST_CONVERGENCE_VERBOSE"] != nil {
            print("\(context): \(log.count) steps, \(created.count) created, \(deleted.count) deleted, "
                + "\(serverStates.count) on the server\n\(history)")
        }
    }

    /// One random change inside a write transaction; returns what it did, for the failure message.
    static func randomOperation(_ realm: Realm, _ rng: inout SplitMix64, created: inout Set<ObjectId>,
                                deleted: inout Set<ObjectId>) -> String {
        let objects = realm.objects(ConvergenceItem.self).sorted { $0._id.stringValue < $1._id.stringValue }
        let roll = rng.int(100)
        if objects.isEmpty || roll < 20 {
            let item = ConvergenceItem()
            item.name = "n\(rng.int(1000))"
            item.count = rng.int(100)
            item.score = Double(rng.int(400)) / 4
            item.note = rng.chance(50) ? "note\(rng.int(10))" : nil
            item.tags.append(objectsIn: (0..<rng.int(3)).map { _ in "t\(rng.int(20))" })
            item.numbers.append(objectsIn: (0..<rng.int(3)).map { _ in rng.int(50) })
            realm.add(item)
            created.insert(item._id)
            return "create \(item._id.stringValue.suffix(6))"
        }
        let item = rng.pick(objects)
        let id = item._id.stringValue.suffix(6)
        switch roll {
        case 20..<30:
            deleted.insert(item._id)
            realm.delete(item)
            return "delete \(id)"
        case 30..<50:
            switch rng.int(4) {
            case 0: item.name = "n\(rng.int(1000))"
            case 1: item.count = rng.int(100)
            case 2: item.score = Double(rng.int(400)) / 4
            default: item.note = rng.chance(50) ? "note\(rng.int(10))" : nil
            }
            return "update \(id)"
        case 50..<75:
            return "tags of \(id): " + listOperation(item.tags, &rng) { r in "t\(r.int(20))" }
        default:
            return "numbers of \(id): " + listOperation(item.numbers, &rng) { r in r.int(50) }
        }
    }

    /// A random list operation: append, insert, remove, replace, move or remove all.
    static func listOperation<T: RealmCollectionValue>(_ list: List<T>, _ rng: inout SplitMix64, _ make: (inout SplitMix64) -> T) -> String {
        let count = list.count
        switch (count == 0 ? 0 : rng.int(7)) {
        case 0, 1:
            list.append(make(&rng))
            return "append"
        case 2:
            list.insert(make(&rng), at: rng.int(count + 1))
            return "insert"
        case 3:
            list.remove(at: rng.int(count))
            return "remove"
        case 4:
            list.replace(index: rng.int(count), object: make(&rng))
            return "replace"
        case 5:
            list.move(from: rng.int(count), to: rng.int(count))
            return "move"
        default:
            list.removeAll()
            return "removeAll"
        }
    }
}
