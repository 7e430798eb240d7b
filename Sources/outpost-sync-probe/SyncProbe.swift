import Foundation
import Outpost

// A test-only helper (issue #4, Reliability): a client process that the kill -9 tests start, kill and start again.
// It is not a product; it is built only so that tests in OutpostSyncTests can run a sync client in its own process.
//
//     outpost-sync-probe --server http://127.0.0.1:9090 --app outpost-dev --root <dir> --count 500
//
// It logs in anonymously (the user is kept in <dir>, so a second run syncs as the same user and the same file),
// opens the user's flexible sync Realm subscribed to every `ProbeItem`, and commits `--count` numbered objects, one
// write transaction each, numbered on from the highest number already in the file. Standard output gets one line
// per step, flushed at once so a parent that kills the process knows exactly what was committed:
//
//     user <id>
//     local <count> <highest number or -1>      the file's objects before committing
//     committed <n>                             after the transaction with object n returned from `write`
//     acknowledged <client version>             the server acknowledged the upload up to this transaction
//     uploaded                                  every committed transaction is acknowledged by the server
//     local <count> <highest number or -1>      the file's objects at the end
//
// `--count 0` commits nothing: it only syncs what the file holds and waits for the upload. `--linger <s>` keeps
// the file open and syncing that long after the upload (printing `lingering` first), for a second process to share.
// `--close-after-upload <s>` instead closes the Realm after the upload (printing `closed`) and stays alive that long,
// so that its session stops after `--linger-time <ms>` (the app's `connectionLingerTime`) and a second process takes
// the file over while this one runs. `--mode bootstrap` only opens the file downloading first, printing `file <path>`,
// `streaming` when its bootstrap starts being applied, and its `local` line once open (see `bootstrap`); with
// `--kill-while-streaming on` it kills itself (SIGKILL, printing `killing`) once a batch of it is written, before
// the commit.
// Exit status 0 on success, 1 (with the error on standard error) otherwise.

/// The probe's object: a number, and a payload so uploads have some size.
final class ProbeItem: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var number: Int
    @Persisted var payload: String
}

struct ProbeArguments {
    var server = "http://127.0.0.1:9090"
    var app = "outpost-dev"
    var root = "./outpost-sync-probe"
    var count = 0
    var uploadTimeout = 120.0
    /// `sync` (the default), `bootstrap` (`SyncProbe.bootstrap`) or `events` (see EventProbe.swift).
    var mode = "sync"
    /// Bootstrap mode: kill the process (SIGKILL) once a streamed bootstrap has applied a batch, before it commits.
    var killWhileStreaming = false
    /// Events mode: the shard size limit, a name that goes into every activity, metadata, and whether an error
    /// handler is set (`off` leaves it nil, so a fatal upload error aborts the process).
    var shardSize = 256 * 1024 * 1024
    var run = "run"
    var metadata: [String: String]?
    var errorHandler = true
    /// Seconds to keep syncing after the upload (printing `lingering`), before the last `local` line.
    var linger = 0
    /// Seconds to stay alive after closing the Realm once uploaded (0: keep it open to the end).
    var closeAfterUpload = 0
    /// The app's `connectionLingerTime`, in milliseconds (nil: the default).
    var lingerTime: Int?

    init(_ arguments: [String]) throws {
        var iterator = arguments.makeIterator()
        while let flag = iterator.next() {
            guard let value = iterator.next() else { throw ProbeError("missing value after \(flag)") }
            switch flag {
            case "--server": server = value
            case "--app": app = value
            case "--root": root = value
            case "--count": count = try Self.number(value, flag)
            case "--upload-timeout": uploadTimeout = Double(try Self.number(value, flag))
            case "--mode": mode = value
            case "--shard-size": shardSize = try Self.number(value, flag)
            case "--run": run = value
            case "--metadata":
                let parts = value.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2 else { throw ProbeError("--metadata needs key=value, got \(value)") }
                metadata = [parts[0]: parts[1]]
            case "--error-handler": errorHandler = value != "off"
            case "--linger": linger = try Self.number(value, flag)
            case "--close-after-upload": closeAfterUpload = try Self.number(value, flag)
            case "--kill-while-streaming": killWhileStreaming = value != "off"
            case "--linger-time": lingerTime = try Self.number(value, flag)
            default: throw ProbeError("unknown option \(flag)")
            }
        }
    }

    private static func number(_ text: String, _ flag: String) throws -> Int {
        guard let n = Int(text), n >= 0 else { throw ProbeError("\(flag) needs a non-negative number, got \(text)") }
        return n
    }
}

struct ProbeError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

@main
struct SyncProbe {
    static func main() async {
        do {
            try await run(ProbeArguments(Array(CommandLine.arguments.dropFirst())))
        } catch {
            FileHandle.standardError.write(Data("outpost-sync-probe: \(error)\n".utf8))
            exit(1)
        }
    }

    static func say(_ line: String) {
        print(line)
        fflush(nil)  // standard output is a pipe: the parent must see each line at once
    }

    static func run(_ arguments: ProbeArguments) async throws {
        let root = URL(fileURLWithPath: arguments.root)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let app = App(id: arguments.app, configuration: AppConfiguration(
            baseURL: arguments.server, syncTimeouts: arguments.lingerTime.map { SyncTimeoutOptions(connectionLingerTime: UInt($0)) },
            rootDirectory: root))
        app.syncManager.logLevel = ProcessInfo.processInfo.environment["OUTPOST_SYNC_LOG"] != nil ? .all : .warn
        app.syncManager.logger = { _, line in FileHandle.standardError.write(Data("\(line)\n".utf8)) }
        let user: User
        if let current = app.currentUser {
            user = current
        } else {
            user = try await app.login(credentials: .anonymous)
        }
        say("user \(user.id)")
        if arguments.mode == "events" {
            try await EventProbe.run(arguments, app: app, user: user, root: root)
        }
        var configuration = user.flexibleSyncConfiguration(initialSubscriptions: { subscriptions in
            subscriptions.append(QuerySubscription<ProbeItem>(name: "all"))
        })
        configuration.objectTypes = [ProbeItem.self]
        if arguments.mode == "bootstrap" {
            try await bootstrap(configuration, app: app, killWhileStreaming: arguments.killWhileStreaming)
        }
        try await syncFile(configuration, arguments)
        if arguments.closeAfterUpload > 0 {
            // The Realm is closed (it was `syncFile`'s): the session stops after the linger time; this process stays.
            say("closed")
            try await Task.sleep(for: .seconds(arguments.closeAfterUpload))
        }
        exit(0)
    }

    /// Commits the run's objects to the file of `configuration`, waits for their upload, and lingers, as the
    /// arguments say; the Realm is closed when it returns.
    static func syncFile(_ configuration: Realm.Configuration, _ arguments: ProbeArguments) async throws {
        let realm = try await Realm(configuration: configuration)
        say(localLine(realm))
        let session = realm.syncSession!
        let progress = session.addProgressNotification(for: .upload, mode: .reportIndefinitely) { progress in
            say("acknowledged \(progress.transferredBytes)")
        }

        var next = (realm.objects(ProbeItem.self).max(ofProperty: "number") as Int? ?? -1) + 1
        let firstOfRun = next
        let payload = String(repeating: "x", count: 200)
        for _ in 0..<arguments.count {
            let item = ProbeItem()
            item.number = next
            item.payload = payload
            try realm.write { realm.add(item) }
            say("committed \(next)")
            if let version = realm.lastCommittedSyncTransaction, next == firstOfRun {
                // Once the server has this run's first transaction: "acknowledged run".
                Task.detached {
                    if case .accepted? = try? await session.verdict(forTransaction: version) { say("acknowledged run") }
                }
            }
            next += 1
        }
        let timeout = arguments.uploadTimeout
        Task.detached {
            try? await Task.sleep(for: .seconds(timeout))
            FileHandle.standardError.write(Data("outpost-sync-probe: the upload did not complete within \(timeout) s\n".utf8))
            exit(1)
        }
        try await session.wait(for: .upload)
        say("uploaded")
        if arguments.closeAfterUpload > 0 {
            progress?.invalidate()
            return
        }
        if arguments.linger > 0 {
            say("lingering")
            try await Task.sleep(for: .seconds(arguments.linger))
        }
        realm.refresh()
        say(localLine(realm))
        progress?.invalidate()
    }

    /// `--mode bootstrap`: opens the file downloading first (its bootstrap streamed, docs/sync-client.md), says
    /// `file <path>` before, `streaming` when the bootstrap's first batch opens its transaction, and its `local` line
    /// once open; then exits.
    static func bootstrap(_ configuration: Realm.Configuration, app: App, killWhileStreaming: Bool) async throws -> Never {
        app.syncManager.logLevel = .trace
        app.syncManager.logger = { _, line in
            if line.contains("applying the bootstrap") { say("streaming") }
            // After a batch is written and before the stream commits: SIGKILL, as a crash would stop it.
            if killWhileStreaming, line.contains("of the bootstrap applied so far") {
                say("killing")
                kill(getpid(), SIGKILL)
            }
            FileHandle.standardError.write(Data("\(line)\n".utf8))
        }
        say("file \(configuration.fileURL?.path ?? "?")")
        let realm = try await Realm(configuration: configuration, downloadBeforeOpen: .always)
        say(localLine(realm))
        exit(0)
    }

    static func localLine(_ realm: Realm) -> String {
        let items = realm.objects(ProbeItem.self)
        return "local \(items.count) \(items.max(ofProperty: "number") as Int? ?? -1)"
    }
}
