import Foundation
import Outpost
import OutpostTesting
import Synchronization
import Testing

/// Write transactions of one process on one file take turns in arrival order (`WriteLock`).
@Suite struct WriteLockTests {
    /// A thread committing back to back does not starve another thread's write to the same file: the other write
    /// gets in after the loop's current transaction. (With SQLite's busy handler alone, which sleeps and retries, the
    /// loop took the lock again every time and the other write waited for its end.) The loop runs until the other
    /// write is done (at most `cap` transactions), so a test thread that is slow to start cannot miss it.
    @Test func aWriterInALoopDoesNotStarveAnotherThreadsWrite() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let configuration = ThreadingFixture.configuration(dir)
        _ = try Realm(configuration: configuration)
        let cap = 20_000
        let committed = Atomic<Int>(0)
        let otherDone = Atomic<Bool>(false)
        let looping = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let loop = Thread {
            let realm = try! Realm(configuration: configuration)
            var i = 0
            while !otherDone.load(ordering: .sequentiallyConsistent) && i < cap {
                i += 1
                try! realm.write { realm.create(TSPerson.self, value: ["id": i, "name": "loop \(i)"]) }
                committed.store(i, ordering: .sequentiallyConsistent)
                if i == 20 { looping.signal() }
            }
            finished.signal()
        }
        loop.start()
        looping.wait()

        let realm = try Realm(configuration: configuration)
        let before = committed.load(ordering: .sequentiallyConsistent)
        try realm.write { realm.create(TSPerson.self, value: ["id": -1, "name": "other thread"]) }
        let after = committed.load(ordering: .sequentiallyConsistent)
        otherDone.store(true, ordering: .sequentiallyConsistent)
        finished.wait()

        #expect(after < cap, "the other write waited for the whole loop")
        // A couple of transactions, plus whatever the loop commits while this thread is descheduled.
        #expect(after - before <= 200, "the loop committed \(after - before) transactions while the other write waited")
        realm.refresh()
        #expect(realm.objects(TSPerson.self).filter("id == -1").count == 1)
    }

    /// A write that fails to begin, a cancelled write and an instance released inside a write all let the next
    /// writer in.
    @Test func everyWayOutOfAWriteLetsTheNextWriterIn() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let configuration = ThreadingFixture.configuration(dir)
        let realm = try Realm(configuration: configuration)
        realm.beginWrite()
        realm.cancelWrite()
        do {
            try realm.write {
                realm.create(TSPerson.self, value: ["id": 1, "name": "a"])
                realm.create(TSPerson.self, value: ["id": 1, "name": "duplicate"])
            }
            Issue.record("expected a duplicate primary key error")
        } catch {}
        let done = DispatchSemaphore(value: 0)
        Thread {
            let other = try! Realm(configuration: configuration)
            other.beginWrite()
            other.create(TSPerson.self, value: ["id": 2, "name": "left open"])
            // `other` goes away inside its write: the write is rolled back.
            done.signal()
        }.start()
        done.wait()
        Thread.sleep(forTimeInterval: 0.05)
        try realm.write { realm.create(TSPerson.self, value: ["id": 3, "name": "c"]) }
        #expect(realm.objects(TSPerson.self).map(\.id) == [3])
    }

    /// Opening a file whose schema has not changed writes nothing, so it does not wait for another thread's write
    /// transaction. (Every open wrote a transaction before — its primary-key indexes again — and waited behind any
    /// writer of the file: an open beside a thread writing in a loop took until the loop ended.)
    @Test func openingAnUnchangedFileDoesNotWaitForAWriter() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let configuration = ThreadingFixture.configuration(dir)
        _ = try Realm(configuration: configuration)
        let writing = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        Thread {
            let writer = try! Realm(configuration: configuration)
            writer.beginWrite()
            writer.create(TSPerson.self, value: ["id": 1, "name": "held"])
            writing.signal()
            release.wait()
            try! writer.commitWrite()
            finished.signal()
        }.start()
        writing.wait()
        let opened = DispatchSemaphore(value: 0)
        Thread {
            _ = try! Realm(configuration: configuration)
            opened.signal()
        }.start()
        let result = opened.wait(timeout: .now() + 5)
        release.signal()
        finished.wait()
        #expect(result == .success, "the open waited for the other thread's write transaction")
        if result != .success { _ = opened.wait(timeout: .now() + 30) }
    }
}
