import Foundation
@testable import Outpost
import Synchronization
import Testing

/// A holder of the write lock that gives way (a bootstrap applied as it arrives) is told when another writer has to
/// wait: once, on that writer's thread, before it waits; or at once when a writer waits already.
@Suite struct WriteLockContentionTests {
    @Test func aWaitingWriterCallsTheHandlerOnceAndGetsInWhenTheHolderLetsGo() async throws {
        let lock = WriteLock()
        lock.lock()
        let calls = Mutex(0)
        let released = DispatchSemaphore(value: 0)
        lock.setContentionHandler {
            calls.withLock { $0 += 1 }
            DispatchQueue.global().async { lock.unlock(); released.signal() }  // the holder gives way
        }
        let first = Thread { lock.lock(); lock.unlock() }
        first.start()
        #expect(released.wait(timeout: .now() + 10) == .success, "the handler did not run")
        lock.lock()  // the waiting writer got in and out; no handler is left to call
        lock.unlock()
        #expect(calls.withLock { $0 } == 1)
    }

    @Test func aHandlerSetWhileAWriterWaitsRunsAtOnce() async throws {
        let lock = WriteLock()
        lock.lock()
        let entered = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        Thread { entered.signal(); lock.lock(); lock.unlock(); done.signal() }.start()
        entered.wait()
        let deadline = ContinuousClock.now + .seconds(30)
        while lock.waitingWriters < 1 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        #expect(lock.waitingWriters == 1, "the writer did not start waiting")
        let called = Mutex(false)
        lock.setContentionHandler { called.withLock { $0 = true } }
        #expect(called.withLock { $0 })
        lock.unlock()
        #expect(done.wait(timeout: .now() + 10) == .success)
    }
}
