import Foundation
import OutpostCore
@testable import OutpostServer
import OutpostServerTesting
import Synchronization
import Testing

/// Backpressure on a connection's incoming messages (``InboundBudget``): the server stops reading a connection
/// whose sessions have a limit's worth of messages waiting, and reads on once they take them.
@Suite(.timeLimit(.minutes(2))) struct InboundBudgetTests {
    @Test func messagesWaitWhileTheQueuesAreFullAndGoInInOrder() async throws {
        let changes = Recorded()
        let budget = InboundBudget(limit: 100) { delta in changes.append(delta) }
        await budget.acquire(60)
        await budget.acquire(40)
        #expect(budget.queuedBytes == 100)
        let admitted = Recorded()
        let first = Task { await budget.acquire(30); admitted.append(1) }
        try await eventuallyTrue { budget.waiting == 1 }
        let second = Task { await budget.acquire(10); admitted.append(2) }
        try await eventuallyTrue { budget.waiting == 2 }
        budget.release(20)  // 80 queued: the first waiter (30) does not fit yet, and the second waits behind it
        try await Task.sleep(for: .milliseconds(50))
        #expect(admitted.values.isEmpty)
        budget.release(60)  // 20 queued: both fit now, in arrival order
        await first.value
        await second.value
        #expect(admitted.values == [1, 2])
        #expect(budget.queuedBytes == 60)
        #expect(changes.values.reduce(0, +) == 60)
    }

    @Test func aMessageLargerThanTheLimitGoesInAlone() async {
        let budget = InboundBudget(limit: 100)
        await budget.acquire(500)
        #expect(budget.queuedBytes == 500)
        budget.release(500)
        await budget.acquire(10)
        #expect(budget.queuedBytes == 10)
    }

    @Test func closingLetsEveryMessageIn() async throws {
        let budget = InboundBudget(limit: 100)
        await budget.acquire(100)
        let waiting = Task { await budget.acquire(50) }
        try await eventuallyTrue { budget.waiting == 1 }
        budget.close()
        await waiting.value
        await budget.acquire(1_000)
        #expect(budget.queuedBytes == 1_150)
    }

    /// A client sends 40 uploads of about 100 KB while the server's commits are held: the server reads about
    /// a limit's worth (256 KiB here) and no more; once commits go on, every upload is integrated and acknowledged
    /// and nothing stays queued.
    @Test func aConnectionIsNotReadWhileItsSessionsAreBehind() async throws {
        try await TemporaryDirectory.with("backpressure") { directory in
            let sqlite = try SQLiteStorage(path: directory.path("server.sqlite"))
            try await sqlite.prepare()
            let storage = HeldCommitStorage(sqlite)
            let app = AppDefinition.development(appId: "backpressure")
            let settings = try SyncAppSettings(app: app)
            let limit = 256 * 1024
            let engine = SyncEngine(storage: storage, inboundLimit: limit) { $0 == settings.appId ? settings : nil }
            try await withTestServer(configuration: app, storage: storage, handler: engine) { server in
                let login = try await SyncWebSocketTests.anonymousLogin(server.client, appId: server.appId)
                let client = try await SyncTestClient.connect(url: server.syncURL(), accessToken: login.token)
                try await SyncWebSocketTests.bindAndSubscribe(client, query: ["Note": "TRUEPREDICATE"])
                storage.hold()
                let filler = String(repeating: "x", count: 100_000)
                let uploads = 40
                for version in 1...uploads {
                    client.send(.upload(session: 1, changesets: [UploadChangeset(
                        clientVersion: Int64(version), lastServerVersion: 0, timestamp: 0,
                        instructions: [.create(className: "Note", primaryKey: .int(Int64(version)),
                                               fields: ["text": .string(filler)])])]))
                }
                try await eventuallyTrue { storage.isHolding }
                // The server reads until the queue is full, then stops: give it time to read more if it would.
                var peak = 0
                for _ in 0..<20 {
                    peak = max(peak, engine.queuedInboundBytes)
                    try await Task.sleep(for: .milliseconds(50))
                }
                #expect(peak > limit / 2, "the queue filled: \(peak) bytes")
                #expect(peak <= limit + 110_000, "at most the limit and one message are queued: \(peak) bytes")
                storage.release()
                let acknowledged = try await client.next(timeout: .seconds(60)) {
                    if case .download(let d) = $0 { d.uploadAck == Int64(uploads) } else { false }
                }
                _ = acknowledged
                for version in 1...uploads {
                    let note = try await storage.document(appId: "backpressure", collection: "Note", primaryKey: .int(Int64(version)))
                    #expect(note?["text"] == .string(filler), "upload \(version)")
                }
                #expect(engine.queuedInboundBytes == 0)
                await client.close()
            }
            try await sqlite.close()
        }
    }
}

/// Integers appended from several tasks.
private final class Recorded: Sendable {
    private let list = Mutex<[Int]>([])
    var values: [Int] { list.withLock { $0 } }
    func append(_ value: Int) { list.withLock { $0.append(value) } }
}

/// Storage whose queued transactions wait while held: the sessions' integration stops, and their queues fill.
/// With `once`, only the next transaction waits; the ones after it pass.
final class HeldCommitStorage: ForwardingStorage, @unchecked Sendable {  // state is behind `lock`
    private let lock = NSLock()
    private var held = false
    private var once = false
    private var holding = 0
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func hold(once: Bool = false) { lock.withLock { held = true; self.once = once } }
    /// Whether a transaction is waiting.
    var isHolding: Bool { lock.withLock { holding > 0 } }
    func release() {
        let waiting = lock.withLock {
            held = false
            defer { waiters = [] }
            return waiters
        }
        for waiter in waiting { waiter.resume() }
    }

    override func queuedTransaction<T: Sendable>(
        appId: String, _ body: @Sendable (any StorageTransaction) async throws -> T
    ) async throws -> PendingTransaction<T> {
        await withCheckedContinuation { continuation in
            let now = lock.withLock {
                guard held else { return true }
                if once { held = false }
                holding += 1
                waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
        return try await base.queuedTransaction(appId: appId, body)
    }
}
