import Foundation
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A function that loops, grows, crowds or dies takes only its worker down: the caller gets a clear error and the
/// next call works.
@Suite struct FunctionLimitTests {
    static let functions = functionEntries([
        ("spin", "exports = function() { for (;;) {} };"),
        ("grow", "exports = function() { const keep = []; for (;;) keep.push(new Array(1e5).fill(Math.random())); };"),
        ("hold", """
            exports = async function() {
              const gate = context.services.get("mongodb-atlas").db("db").collection("Gate");
              while (!(await gate.findOne({ _id: "open" }))) await new Promise((resolve) => setTimeout(resolve, 20));
              return "released";
            };
            """),
        ("sum", "exports = (a, b) => a + b;"),
        ("markAndWait", """
            exports = async function(tag) {
              await context.services.get("mongodb-atlas").db("db").collection("Pid")
                .insertOne({ _id: tag, pid: process.pid });
              return new Promise(() => {});
            };
            """),
    ])

    @Test func aCallPastTheTimeLimitIsStopped() async throws {
        try await withFunctionServer(functions: Self.functions, runtime: #"{"time_limit_seconds": 1, "workers": 1}"#) { server in
            let user = try await server.newUser()
            let spin = try await server.callFunction("spin", as: user)
            #expect(spin.status == 400, "\(spin.json.text)")
            #expect(spin.json["error_code"] == .string("ExecutionTimeLimitExceeded"))
            #expect(spin.json["error"]?.stringValue?.contains("1 s") == true)
            let sum = try await server.callFunction("sum", "[1, 2]", as: user)
            #expect(sum.json == JSONValue.parse(#"{"$numberInt": "3"}"#), "\(sum.json.text)")
        }
    }

    @Test func aCallPastTheMemoryLimitIsStopped() async throws {
        try await withFunctionServer(functions: Self.functions, runtime: #"{"memory_limit_mb": 48, "workers": 1}"#) { server in
            let user = try await server.newUser()
            let grow = try await server.callFunction("grow", as: user)
            #expect(grow.status == 400, "\(grow.json.text)")
            #expect(grow.json["error_code"] == .string("FunctionExecutionError"))
            #expect(grow.json["error"]?.stringValue?.contains("memory limit") == true, "\(grow.json.text)")
            let sum = try await server.callFunction("sum", "[1, 2]", as: user)
            #expect(sum.json == JSONValue.parse(#"{"$numberInt": "3"}"#))
        }
    }

    @Test func aFullQueueRefusesAtOnce() async throws {
        try await withFunctionServer(
            functions: Self.functions, runtime: #"{"workers": 1, "max_queued_calls": 0}"#
        ) { server in
            let user = try await server.newUser()
            async let long = server.callFunction("hold", as: user)
            // Wait until `hold` has the only worker; it keeps it until the gate opens.
            while try await server.admin("GET", "functions").json["runtime"]?["busy_workers"] != .int(1) {
                try await Task.sleep(for: .milliseconds(20))
            }
            let refused = try await server.callFunction("sum", "[1, 2]", as: user)
            #expect(refused.status == 429, "\(refused.json.text)")
            #expect(refused.json["error_code"] == .string("TooManyRequests"))
            try await server.ok("Gate", "insertOne", #"{"document": {"_id": "open"}}"#, as: user)
            #expect(try await long.json == .string("released"))
            let sum = try await server.callFunction("sum", "[1, 2]", as: user)
            #expect(sum.status == 200)
        }
    }

    @Test func queuedCallsWaitForAWorker() async throws {
        try await withFunctionServer(functions: Self.functions, runtime: #"{"workers": 1}"#) { server in
            let user = try await server.newUser()
            let answers = try await withThrowingTaskGroup(of: JSONValue.self) { group in
                for i in 0..<6 {
                    group.addTask { try await server.callFunction("sum", "[\(i), 1]", as: user).json }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let sums = Set(answers.compactMap { $0["$numberInt"]?.stringValue })
            #expect(sums == Set((1...6).map(String.init)), "\(answers)")
        }
    }

    @Test func aWorkerKilledMidCall() async throws {
        try await withFunctionServer(functions: Self.functions, runtime: #"{"workers": 1}"#) { server in
            let user = try await server.newUser()
            async let waiting = server.callFunction("markAndWait", #"["first"]"#, as: user)
            var pid: Int32?
            while pid == nil {
                let found = try await server.storage.document(appId: server.appId, collection: "Pid", primaryKey: .string("first"))
                if case .int(let n)? = found?["pid"] { pid = Int32(n) }
                if pid == nil { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(kill(pid!, SIGKILL) == 0)
            let killed = try await waiting
            #expect(killed.status == 500, "\(killed.json.text)")
            #expect(killed.json["error_code"] == .string("FunctionExecutionError"))
            #expect(killed.json["error"]?.stringValue?.contains("ended unexpectedly") == true, "\(killed.json.text)")
            let sum = try await server.callFunction("sum", "[1, 2]", as: user)
            #expect(sum.json == JSONValue.parse(#"{"$numberInt": "3"}"#))
        }
    }
}
