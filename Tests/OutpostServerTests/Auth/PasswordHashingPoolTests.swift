import Foundation
import OutpostCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import OutpostServerTesting
import Synchronization
import Testing

@testable import OutpostServer

/// PBKDF2 runs on its own bounded pool: logins queue there while other requests keep being served. The checks are
/// on the order of events, not on durations, so they hold on a busy machine.
@Suite struct PasswordHashingPoolTests {
    @Test func healthAnswersWhileLoginsWaitForHashing() async throws {
        let pool = PasswordHashingPool(threads: 1, maxQueued: 16)
        try await withTestServer(passwordHashingPool: pool) { server in
            let finished = LoginCount()
            let gate = DispatchSemaphore(value: 0)
            try await withThrowingTaskGroup(of: Int.self) { group in
                // The pool's only thread is held until the gate opens: the logins queue behind it, and none can
                // finish before /health has answered, however busy the machine is.
                group.addTask { try await pool.run { gate.wait(); return 0 } }
                while pool.pendingJobs < 1 { try await Task.sleep(for: .milliseconds(5)) }
                for i in 0..<4 {
                    group.addTask {
                        let response = try await server.loginResponse(
                            "local-userpass",
                            .object(["username": .string("user\(i)@example.com"), "password": "wrong-password"]))
                        finished.value.add(1, ordering: .sequentiallyConsistent)
                        return response.status
                    }
                }
                while pool.pendingJobs < 5 { try await Task.sleep(for: .milliseconds(5)) }
                // A session of its own: the shared one may hold the request back behind the logins' connections.
                let session = URLSession(configuration: .ephemeral)
                let (_, health) = try await session.data(from: try #require(URL(string: server.baseURL + "/health")))
                #expect((health as? HTTPURLResponse)?.statusCode == 200)
                #expect(finished.value.load(ordering: .sequentiallyConsistent) == 0)
                #expect(pool.pendingJobs == 5, "the logins still wait for the hashing thread")
                gate.signal()
                var statuses: [Int] = []
                for try await status in group { statuses.append(status) }
                #expect(statuses.sorted() == [0, 401, 401, 401, 401])
            }
        }
        try await pool.shutdown()
    }

    @Test func aFullQueueIsRefusedAtOnce() async throws {
        let pool = PasswordHashingPool(threads: 1, maxQueued: 1)
        let hasher = PasswordHasher(iterations: 1_000, pool: pool)
        let hash = hasher.hash("secret")
        let gate = DispatchSemaphore(value: 0)
        let running = try await withThrowingTaskGroup(of: Bool.self) { group in
            // One job holds the only thread until the gate opens; a second waits in the queue.
            group.addTask { try await pool.run { gate.wait(); return true } }
            while pool.pendingJobs < 1 { try await Task.sleep(for: .milliseconds(1)) }
            group.addTask { try await hasher.verifyInPool("secret", against: hash) }
            while pool.pendingJobs < 2 { try await Task.sleep(for: .milliseconds(1)) }
            do {
                _ = try await hasher.verifyInPool("secret", against: hash)
                Issue.record("a third job was accepted")
            } catch let error as AuthError {
                #expect(error.code == .hashingBusy && error.retryAfterSeconds == 1)
            }
            gate.signal()
            var results: [Bool] = []
            for try await result in group { results.append(result) }
            return results
        }
        #expect(running == [true, true])
        #expect(pool.pendingJobs == 0)
        try await pool.shutdown()
    }

    @Test func aLoginThatFindsTheQueueFullAnswers503() async throws {
        let pool = PasswordHashingPool(threads: 1, maxQueued: 0)
        try await withTestServer(passwordHashingPool: pool) { server in
            let credentials: JSONValue = .object(["username": "someone@example.com", "password": "wrong-password"])
            let gate = DispatchSemaphore(value: 0)
            let holder = Task { try await pool.run { gate.wait(); return true } }
            while pool.pendingJobs < 1 { try await Task.sleep(for: .milliseconds(5)) }
            let refused = try await server.loginResponse("local-userpass", credentials)
            #expect(refused.status == 503 && refused.headers["retry-after"] == "1")
            #expect(refused.errorCode == "ServiceUnavailable" && refused.code == "hashingBusy")
            gate.signal()
            #expect(try await holder.value)
            #expect(try await server.loginResponse("local-userpass", credentials).status == 401)
        }
        try await pool.shutdown()
    }
}

/// Logins answered so far, counted from the tasks that sent them.
private final class LoginCount: Sendable {
    let value = Atomic<Int>(0)
}
