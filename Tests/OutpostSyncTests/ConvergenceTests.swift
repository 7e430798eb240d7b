import Foundation
import Outpost
import OutpostCore
import OutpostCoreTesting
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
/// against a real `outpost-server` process (HTTP + WebSocket on 127.0.0.1, its embedded SQLite storage; the test
/// reads the server's database through a second connection). Once every client is connected again and
/// has uploaded and downloaded everything, every client holds exactly the server's documents, and the server holds
/// exactly the objects created and not deleted.
@Suite(.timeLimit(.minutes(10))) struct ConvergenceTests {
    /// Five fixed seeds. For a longer hunt, `OUTPOST_CONVERGENCE_SEEDS=<n>` (or `<a>...<b>`) runs seeds 1…n (a…b)
    /// instead, `OUTPOST_CONVERGENCE_STEPS` sets the steps per run and `OUTPOST_CONVERGENCE_TIMEOUT` the seconds each
    /// final wait may take (many seeds run in parallel).
    static let seeds: [UInt64] = {
        guard let text = ProcessInfo.processInfo.environment["OUTPOST_CONVERGENCE_SEEDS"] else {
            return [1, 2, 3, 0xC0FFEE, 20_251_121]
        }
        let bounds = text.components(separatedBy: "...").compactMap { UInt64($0) }
        if bounds.count == 2 && bounds[0] <= bounds[1] { return Array(bounds[0]...bounds[1]) }
        return Array(1...max(1, bounds.first ?? 1))
    }()

    @Test(arguments: seeds)
    func randomEditsWhileDisconnectedConverge(seed: UInt64) async throws {
        try await Self.withServer { server, app in
            try await ConvergenceRun(seed: seed, server: server, app: app).run()
        }
    }

    /// The same, and the clients also change their subscription (all objects, `count < 50` or `count >= 50`) at
    /// random: objects enter and leave their views by bootstraps, and writes outside the view come back as
    /// compensating writes. At the end every client subscribes to all objects again.
    @Test(arguments: ProcessInfo.processInfo.environment["OUTPOST_CONVERGENCE_SEEDS"] == nil ? Array(seeds.prefix(3)) : seeds)
    func randomEditsWithChangingSubscriptionsConverge(seed: UInt64) async throws {
        try await Self.withServer { server, app in
            var run = ConvergenceRun(seed: seed, server: server, app: app)
            run.changesSubscriptions = true
            try await run.run()
        }
    }

    /// Longer runs of the same (300 steps, ten seeds, in the default run too): the length at which a hunt of 41
    /// seeds found a download acknowledging less than it carried and a client keeping objects deleted on the server
    /// (both fixed, each with a test of its own). Skipped when `OUTPOST_CONVERGENCE_SEEDS` picks the seeds.
    @Test(arguments: ProcessInfo.processInfo.environment["OUTPOST_CONVERGENCE_SEEDS"] == nil ? Array(UInt64(200)...209) : [])
    func longRunsWithChangingSubscriptionsConverge(seed: UInt64) async throws {
        try await Self.withServer { server, app in
            var run = ConvergenceRun(seed: seed, server: server, app: app)
            run.changesSubscriptions = true
            run.steps = 300
            run.timeout = .seconds(60)
            try await run.run()
        }
    }

    /// An `outpost-server` process serving its development app from a data directory in a temporary directory, the
    /// server's database opened for reading, and a client App. The users are logged out and the process stopped
    /// afterwards, also when `body` throws.
    static func withServer(_ body: (ConvergenceServer, App) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("outpost-convergence-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let dataDirectory = directory.appendingPathComponent("server")
        let process = try await OutpostServerProcess.launch(arguments: ["--port", "0", "--data-dir", dataDirectory.path])
        let app = App(id: AppDefinition.developmentAppId, configuration: AppConfiguration(
            baseURL: process.baseURL, rootDirectory: directory.appendingPathComponent("client")))
        app.syncManager.logLevel = .warn
        var storage: SQLiteStorage?
        func cleanUp() async {
            for user in app.allUsers.values where user.isLoggedIn { try? await user.logOut() }
            try? await storage?.close()
            _ = try? await process.terminate()
        }
        do {
            let opened = try SQLiteStorage(path: dataDirectory.appendingPathComponent("outpost.sqlite").path)
            storage = opened
            try await body(ConvergenceServer(storage: opened, appId: AppDefinition.developmentAppId), app)
        } catch {
            await cleanUp()
            throw error
        }
        await cleanUp()
    }
}

/// The server of a convergence run: its database (read through a connection of the test's own) and its app.
struct ConvergenceServer {
    let storage: any ServerStorage
    let appId: String
}

/// One seeded run of ``ConvergenceTests``.
struct ConvergenceRun {
    let seed: UInt64
    let server: ConvergenceServer
    let app: App
    /// Operations (transactions and connectivity changes) across all clients.
    var steps = ProcessInfo.processInfo.environment["OUTPOST_CONVERGENCE_STEPS"].flatMap { Int($0) } ?? 60
    /// Whether clients also change their subscription at random (then writes may be compensated, and only
    /// equality with the server is checked).
    var changesSubscriptions = false
    /// How long each client's final upload or download may take (60 s: under two full test runs at once, a
    /// subscription took longer than 20 s to complete; a run that converges never waits that long).
    var timeout = Duration.seconds(ProcessInfo.processInfo.environment["OUTPOST_CONVERGENCE_TIMEOUT"].flatMap { Int($0) } ?? 60)

    func run() async throws {
        var rng = SplitMix64(seed: seed)
        let reports = SyncReports()
        reports.install(on: app)
        let trace = ProcessInfo.processInfo.environment["OUTPOST_CONVERGENCE_TRACE"] != nil
        if trace { app.syncManager.logLevel = .trace }
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
            if changesSubscriptions && rng.chance(8) {
                let query = rng.pick(Self.viewQueries)
                Self.subscribe(realm, query)
                log.append("\(step): client \(c) subscribes to \(query)")
            } else if rng.chance(12) {
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
            if changesSubscriptions {
                for realm in realms { Self.subscribe(realm, "TRUEPREDICATE") }
                for (c, realm) in realms.enumerated() {
                    try await eventually(timeout: timeout, "\(context): client \(c)'s subscription to all objects") {
                        realm.subscriptions.state == .complete
                    }
                }
            }
            for round in 1...2 {
                for (c, realm) in realms.enumerated() {
                    let session = realm.syncSession!
                    try await withDeadline(timeout, "\(context): client \(c) upload (round \(round))") {
                        try await session.wait(for: .upload)
                    }
                }
                for (c, realm) in realms.enumerated() {
                    let session = realm.syncSession!
                    try await withDeadline(timeout, "\(context): client \(c) download (round \(round))") {
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
        // Objects with a shared primary key may be created again after a delete: only the others have an oracle.
        let shared = Set(Self.sharedIds.map(\.stringValue))
        let expectedIds = created.subtracting(deleted).map(\.stringValue).filter { !shared.contains($0) }.sorted()
        let history = log.joined(separator: "\n")
        if !changesSubscriptions {
            #expect(serverStates.map(\.id).filter { !shared.contains($0) }.sorted() == expectedIds,
                    "\(context): the server must hold exactly the objects created and not deleted\n\(history)")
        }
        let serverById = Dictionary(uniqueKeysWithValues: serverStates.map { ($0.id, $0) })
        var mismatched = changesSubscriptions ? []
            : Set(serverStates.map(\.id).filter { !shared.contains($0) }).symmetricDifference(expectedIds)
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
            mismatched.formUnion(Set(serverById.keys).union(clientById.keys).filter { serverById[$0] != clientById[$0] })
        }
        if trace && !mismatched.isEmpty {
            try await writeTrace(mismatched: mismatched, realms: realms, lines: reports.lines, history: history)
        }
        let unexpected = reports.errors.filter { !(changesSubscriptions && $0.code == .writeRejected) }
        #expect(unexpected.isEmpty, "\(context): unexpected sync errors \(unexpected)")
        if ProcessInfo.processInfo.environment["OUTPOST_CONVERGENCE_VERBOSE"] != nil {
            print("\(context): \(log.count) steps, \(created.count) created, \(deleted.count) deleted, "
                + "\(reports.errors.count) compensating writes, "
                + "\(serverStates.count) on the server\n\(history)")
        }
    }

    /// With `OUTPOST_CONVERGENCE_TRACE`: writes the clients' files, the server's history of the mismatched objects
    /// and the clients' trace log to `$TMPDIR/outpost-convergence-<seed>.log`.
    func writeTrace(mismatched: Set<String>, realms: [Realm], lines: [String], history: String) async throws {
        var out = "seed \(seed); mismatched \(mismatched.sorted())\n"
        for (c, realm) in realms.enumerated() { out += "client \(c): \(realm.configuration.fileURL!.path)\n" }
        let latest = try await server.storage.latestServerVersion(appId: server.appId)
        for changeset in try await server.storage.changesets(appId: server.appId, after: 0, upTo: latest, limit: Int(latest)) {
            for change in changeset.draft.changes {
                guard case .objectId(let id) = change.primaryKey, mismatched.contains(id.stringValue) else { continue }
                let after = try change.after.map { try ConvergenceState(document: $0).description } ?? "deleted"
                out += "server version \(changeset.serverVersion) from file \(changeset.draft.originFileIdent) client version "
                    + "\(changeset.draft.originClientVersion): \(id.stringValue.suffix(6)) changed \(change.changedFields) → \(after)\n"
            }
        }
        out += "\n" + lines.joined(separator: "\n") + "\n\n" + history + "\n"
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("outpost-convergence-\(seed).log")
        try out.write(to: url, atomically: true, encoding: .utf8)
        print("seed \(seed): trace written to \(url.path)")
    }

    /// The subscriptions a client switches between when ``changesSubscriptions`` is on.
    static let viewQueries = ["TRUEPREDICATE", "count < 50", "count >= 50"]

    /// Replaces the client's subscription (without waiting: the client may be offline).
    static func subscribe(_ realm: Realm, _ query: String) {
        let subscriptions = realm.subscriptions
        subscriptions.update {
            subscriptions.removeAll()
            subscriptions.append(QuerySubscription<ConvergenceItem>(name: "all", where: query))
        }
    }

    /// Primary keys every client may create (`add(_:update: .modified)`), also after they were deleted: concurrent
    /// creates of one object merge on the server.
    static let sharedIds: [ObjectId] = (1...4).map { try! ObjectId(string: "00000000000000000000000\($0)") }

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
        case 75..<93:
            return "numbers of \(id): " + listOperation(item.numbers, &rng) { r in r.int(50) }
        default:
            let shared = ConvergenceItem()
            shared._id = rng.pick(sharedIds)
            shared.name = "s\(rng.int(1000))"
            shared.count = rng.int(100)
            shared.score = Double(rng.int(400)) / 4
            shared.tags.append(objectsIn: (0..<rng.int(3)).map { _ in "t\(rng.int(20))" })
            realm.add(shared, update: .modified)
            created.insert(shared._id)
            return "put shared \(shared._id.stringValue.suffix(6))"
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
