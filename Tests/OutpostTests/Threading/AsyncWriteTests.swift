import Foundation
import Outpost
import OutpostTesting
import Testing

/// Realm's asynchronous writes: queued blocks run in order on the Realm's queue, each in a write transaction, and
/// commit completions come back there; the async forms run on the caller's actor.
@Suite(.timeLimit(.minutes(2))) struct AsyncWriteTests {
    let dir = TemporaryDirectory()

    var configuration: Realm.Configuration { dir.configuration(objectTypes: [CQDog.self, CQOwner.self]) }

    /// Opens a Realm confined to `queue` and runs `body` there; returns once `finished` is signalled.
    func onQueue(_ body: @escaping (Realm, @escaping () -> Void) -> Void) throws -> Realm {
        let queue = DispatchQueue(label: "async-writes")
        let finished = DispatchSemaphore(value: 0)
        let configuration = self.configuration
        nonisolated(unsafe) var opened: Realm?
        try queue.sync {
            let realm = try Realm(configuration: configuration, queue: queue)
            opened = realm
            body(realm) { finished.signal() }
        }
        #expect(finished.wait(timeout: .now() + 60) == .success)
        return try #require(opened)
    }

    func names() throws -> [String] {
        try Realm(configuration: configuration).objects(CQDog.self).map(\.name)
    }

    @Test func writesRunInOrderAndCompleteOnTheQueue() throws {
        defer { dir.remove() }
        nonisolated(unsafe) var events: [String] = []
        nonisolated(unsafe) var busyAfterQueueing = false
        _ = try onQueue { realm, finished in
            realm.writeAsync({ realm.create(CQDog.self, value: ["name": "first"]) }, onComplete: { error in
                events.append("first \(error == nil)")
            })
            realm.writeAsync({ realm.create(CQDog.self, value: ["name": "second"]) }, onComplete: { error in
                events.append("second \(error == nil)")
                finished()
            })
            busyAfterQueueing = realm.isPerformingAsynchronousWriteOperations
            events.append("queued")
        }
        #expect(busyAfterQueueing)
        #expect(events == ["queued", "first true", "second true"])
        #expect(try names() == ["first", "second"])
    }

    @Test func aCancelledBeginNeverRunsAndAnUncommittedBlockIsRolledBack() throws {
        defer { dir.remove() }
        nonisolated(unsafe) var ran: [String] = []
        let realm = try onQueue { realm, finished in
            let cancelled = realm.beginAsyncWrite {
                ran.append("cancelled")
                realm.create(CQDog.self, value: ["name": "cancelled"])
                realm.commitAsyncWrite()
            }
            realm.beginAsyncWrite {
                ran.append("uncommitted")
                realm.create(CQDog.self, value: ["name": "uncommitted"])
            }
            realm.beginAsyncWrite {
                ran.append("committed")
                realm.create(CQDog.self, value: ["name": "committed"])
                realm.commitAsyncWrite { _ in finished() }
            }
            try? realm.cancelAsyncWrite(cancelled)
        }
        #expect(ran == ["uncommitted", "committed"])
        #expect(try names() == ["committed"])
        _ = realm
    }

    @Test func commitAsyncWriteAfterASynchronousBegin() throws {
        defer { dir.remove() }
        nonisolated(unsafe) var completed: Error??
        _ = try onQueue { realm, finished in
            realm.beginWrite()
            realm.create(CQDog.self, value: ["name": "sync-begun"])
            realm.commitAsyncWrite { error in
                completed = .some(error)
                finished()
            }
        }
        #expect(completed != nil && completed! == nil)
        #expect(try names() == ["sync-begun"])
    }

    @Test func aReleasedRealmStillCompletesItsWritesAndSynchronousWritesGoFirst() throws {
        defer { dir.remove() }
        nonisolated(unsafe) var events: [String] = []
        let queue = DispatchQueue(label: "released")
        let finished = DispatchSemaphore(value: 0)
        let configuration = self.configuration
        try queue.sync {
            // Opened, used and released inside this block: the queued write and its completion still run.
            let realm = try Realm(configuration: configuration, queue: queue)
            realm.beginWrite()
            realm.writeAsync({ realm.create(CQDog.self, value: ["name": "async"]); events.append("async") },
                             onComplete: { error in
                                 events.append("completed \(error == nil)")
                                 finished.signal()
                             })
            realm.create(CQDog.self, value: ["name": "sync"])
            try realm.commitWrite()
            events.append("sync committed")
        }
        #expect(finished.wait(timeout: .now() + 60) == .success)
        #expect(events == ["sync committed", "async", "completed true"])
        #expect(try names() == ["sync", "async"])
    }

    actor DogStore {
        var realm: Realm?

        func open(_ configuration: Realm.Configuration) async throws {
            realm = try await Realm.open(configuration: configuration)
        }

        func add(_ name: String) async throws -> Int {
            let realm = try #require(realm)
            try await realm.asyncWrite {
                self.assertIsolated()
                realm.create(CQDog.self, value: ["name": name])
            }
            await realm.asyncRefresh()
            return realm.objects(CQDog.self).count
        }
    }

    @Test func asyncWriteRunsOnACustomActor() async throws {
        defer { dir.remove() }
        let store = DogStore()
        try await store.open(configuration)
        #expect(try await store.add("a") == 1)
        #expect(try await store.add("b") == 2)
        #expect(try names() == ["a", "b"])
    }

    /// `Realm.open` and `asyncRefresh` from the main actor, as a SwiftUI app calls them: the Realm stays there.
    @MainActor static func openAndRefreshOnTheMainActor(_ configuration: Realm.Configuration) async throws -> Int {
        let realm = try await Realm.open(configuration: configuration)
        MainActor.assertIsolated()
        writeElsewhere(configuration)
        await realm.asyncRefresh()
        MainActor.assertIsolated()
        return realm.objects(CQDog.self).count
    }

    /// Another thread's commit.
    nonisolated static func writeElsewhere(_ configuration: Realm.Configuration) {
        let done = DispatchSemaphore(value: 0)
        Thread {
            let realm = try! Realm(configuration: configuration)
            try! realm.write { _ = realm.create(CQDog.self, value: ["name": "elsewhere"]) }
            done.signal()
        }.start()
        done.wait()
    }

    @Test func openAndAsyncRefreshKeepTheMainActor() async throws {
        defer { dir.remove() }
        #expect(try await Self.openAndRefreshOnTheMainActor(configuration) == 1)
    }

    @MainActor static func addOnTheMainActor(_ configuration: Realm.Configuration) async throws -> Int {
        let realm = try await Realm(configuration: configuration)
        try await realm.asyncWrite {
            MainActor.assertIsolated()
            realm.create(CQDog.self, value: ["name": "main"])
        }
        return realm.objects(CQDog.self).count
    }

    @Test func asyncWriteRunsOnTheMainActor() async throws {
        defer { dir.remove() }
        #expect(try await Self.addOnTheMainActor(configuration) == 1)
    }

    /// As Realm's: in a cancelled task `asyncWrite` throws `CancellationError` and never calls its block; inside the
    /// block the Realm is performing an asynchronous write.
    @MainActor static func cancelledAndRunning(_ configuration: Realm.Configuration) async throws -> (Bool, Bool) {
        let realm = try await Realm(configuration: configuration)
        let cancelled = Task { @MainActor in
            withUnsafeCurrentTask { $0?.cancel() }
            do {
                try await realm.asyncWrite { Issue.record("the block of a cancelled task ran") }
                return false
            } catch is CancellationError { return true }
        }
        let threw = try await cancelled.value
        let performing = try await realm.asyncWrite { realm.isPerformingAsynchronousWriteOperations }
        return (threw, performing && !realm.isPerformingAsynchronousWriteOperations)
    }

    @Test func aCancelledTaskDoesNotWrite() async throws {
        defer { dir.remove() }
        let (threw, performing) = try await Self.cancelledAndRunning(configuration)
        #expect(threw)
        #expect(performing)
    }

    /// Another thread's write transaction is waited for without holding up the actor: the main actor runs other
    /// work meanwhile, and the write happens once the other thread commits.
    @MainActor static func waitWithoutBlocking(_ configuration: Realm.Configuration) async throws -> Int {
        let release = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        holdAWrite(configuration, release: release, done: done)
        let realm = try await Realm(configuration: configuration)
        let writer = Task { @MainActor in
            try await realm.asyncWrite { _ = realm.create(CQDog.self, value: ["name": "after"]) }
        }
        let other = Task { @MainActor in "the main actor is free" }
        #expect(await other.value == "the main actor is free")
        release.signal()
        try await writer.value
        return realm.objects(CQDog.self).count
    }

    /// Starts a thread that holds a write transaction of the file until `release` is signalled; returns once it holds it.
    nonisolated static func holdAWrite(_ configuration: Realm.Configuration, release: DispatchSemaphore, done: DispatchSemaphore) {
        let holding = DispatchSemaphore(value: 0)
        Thread {
            let realm = try! Realm(configuration: configuration)
            realm.beginWrite()
            realm.create(CQDog.self, value: ["name": "held"])
            holding.signal()
            release.wait()
            try! realm.commitWrite()
            done.signal()
        }.start()
        holding.wait()
    }

    /// A task cancelled while `asyncWrite` waits for another thread's write ends with `CancellationError`; its
    /// block never runs, and the other thread's write goes on.
    @MainActor static func cancelWhileWaiting(_ configuration: Realm.Configuration) async throws -> (Bool, Int) {
        let release = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        holdAWrite(configuration, release: release, done: done)
        let realm = try await Realm(configuration: configuration)
        let writer = Task { @MainActor in
            do {
                try await realm.asyncWrite { Issue.record("the block of a cancelled write ran") }
                return false
            } catch is CancellationError { return true }
        }
        await Task.yield()
        writer.cancel()
        let threw = try await writer.value
        release.signal()
        wait(done)
        realm.refresh()
        return (threw, realm.objects(CQDog.self).count)
    }

    nonisolated static func wait(_ semaphore: DispatchSemaphore) { semaphore.wait() }

    @Test func cancellingAWaitingAsyncWriteThrows() async throws {
        defer { dir.remove() }
        _ = try await Realm(configuration: configuration)
        let (threw, count) = try await Self.cancelWhileWaiting(configuration)
        #expect(threw)
        #expect(count == 1)
    }

    @Test func asyncWriteWaitsForAnotherThreadWithoutBlockingTheActor() async throws {
        defer { dir.remove() }
        _ = try await Realm(configuration: configuration)
        #expect(try await Self.waitWithoutBlocking(configuration) == 2)
    }
}
