import Foundation
import OutpostCore
@testable import OutpostServer
import Testing

/// The server's side of a call, as transcripts: worker lines in, steps out. No process, no clock.
@Suite struct FunctionCallExchangeTests {
    func line(_ text: String) -> JSONValue { JSONValue.parse(text)! }

    @Test func logsThenAResult() {
        var exchange = FunctionCallExchange(callId: 7, name: "sum", maxLogLines: 10)
        #expect(exchange.receive(line(#"{"type":"log","call":7,"level":"log","message":"adding"}"#)) == .none)
        #expect(exchange.receive(line(#"{"type":"log","call":8,"level":"log","message":"another call's"}"#)) == .none)
        #expect(exchange.receive(line(#"{"type":"done","id":7,"result":{"$numberInt":"3"}}"#))
            == .finished(.success(line(#"{"$numberInt":"3"}"#))))
        #expect(exchange.logs == [.init(level: "log", message: "adding")])
        #expect(exchange.isFinished)
        // Nothing after `done` changes the outcome.
        #expect(exchange.receive(line(#"{"type":"done","id":7,"result":1}"#)) == .none)
    }

    @Test func aServiceRequestIsHandedOutAndAnswered() {
        var exchange = FunctionCallExchange(callId: 1, name: "f", maxLogLines: 10)
        let step = exchange.receive(line("""
            {"type":"service","call":1,"request":4,"service":"mongodb-atlas","database":"db","collection":"Item",
             "action":"findOne","body":{"filter":{"_id":{"$numberInt":"1"}}},"run_as_system":true}
            """))
        guard case .service(let request) = step else {
            Issue.record("expected a service request, got \(step)")
            return
        }
        #expect(request.request == 4 && request.collection == "Item" && request.action == "findOne" && request.runAsSystem)
        #expect(request.body["filter"] == line(#"{"_id":{"$numberInt":"1"}}"#))
        let ok = FunctionCallExchange.reply(to: 4, .success(line(#"{"document":null}"#)))
        #expect(ok == line(#"{"type":"reply","request":4,"result":{"document":null}}"#))
        let refused = FunctionCallExchange.reply(to: 5, .failure(APIError.badRequest("no")))
        #expect(refused == line(#"{"type":"reply","request":5,"error":{"message":"no","code":"BadRequest"}}"#))
        #expect(!exchange.isFinished)
    }

    @Test func errorsByName() {
        let cases: [(String, FunctionCallError.Kind, String)] = [
            ("Error", .threw, "FunctionExecutionError"),
            ("TypeError", .threw, "FunctionExecutionError"),
            ("SyntaxError", .syntaxError, "FunctionSyntaxError"),
            ("FunctionInvalid", .invalid, "FunctionInvalid"),
            ("FunctionNotFound", .notFound, "FunctionNotFound"),
        ]
        for (name, kind, code) in cases {
            var exchange = FunctionCallExchange(callId: 2, name: "f", maxLogLines: 0)
            let step = exchange.receive(line(#"{"type":"done","id":2,"error":{"name":"\#(name)","message":"boom"}}"#))
            let message = kind == .syntaxError ? "function 'f' does not compile: boom" : "boom"
            #expect(step == .finished(.failure(FunctionCallError(kind, message))), "\(name)")
            #expect(FunctionCallError(kind, "boom").errorCode == code)
        }
    }

    @Test func logLinesAreBoundedAndCut() {
        var exchange = FunctionCallExchange(callId: 1, name: "f", maxLogLines: 2)
        let long = String(repeating: "x", count: FunctionCallExchange.maxLogMessageBytes + 100)
        for i in 0..<5 {
            _ = exchange.receive(.object([
                "type": .string("log"), "call": .int(1), "level": .string("warn"),
                "message": .string(i == 0 ? long : "line \(i)"),
            ]))
        }
        #expect(exchange.logs.count == 2)
        #expect(exchange.droppedLogLines == 3)
        #expect(exchange.logs[0].message.utf8.count <= FunctionCallExchange.maxLogMessageBytes + 3)
        #expect(exchange.logs[1] == .init(level: "warn", message: "line 1"))
    }

    @Test func aBrokenLineEndsTheCall() {
        var exchange = FunctionCallExchange(callId: 1, name: "f", maxLogLines: 2)
        guard case .finished(.failure(let error)) = exchange.receive(.array([])) else {
            Issue.record("a line that is not a message must end the call")
            return
        }
        #expect(error.kind == .workerDied)
        var second = FunctionCallExchange(callId: 1, name: "f", maxLogLines: 2)
        guard case .finished(.failure(let missing)) = second.receive(line(#"{"type":"service","call":1,"request":1}"#))
        else {
            Issue.record("a service request without its fields must end the call")
            return
        }
        #expect(missing.kind == .workerDied)
    }

    @Test func workerEndings() {
        var timed = FunctionCallExchange(callId: 1, name: "spin", maxLogLines: 2)
        let timeLimit = timed.workerEnded(killedFor: .timeLimit, outOfMemory: false, stderr: "", timeLimitSeconds: 2)
        #expect(timeLimit.kind == .timeLimit && timeLimit.errorCode == "ExecutionTimeLimitExceeded")
        #expect(timeLimit.message.contains("2 s"))
        var hungry = FunctionCallExchange(callId: 1, name: "grow", maxLogLines: 2)
        let memory = hungry.workerEnded(killedFor: nil, outOfMemory: true, stderr: "FATAL ERROR: heap out of memory",
                                        timeLimitSeconds: 2)
        #expect(memory.kind == .memoryLimit && memory.message.contains("memory limit"))
        var crashed = FunctionCallExchange(callId: 1, name: "f", maxLogLines: 2)
        let died = crashed.workerEnded(killedFor: nil, outOfMemory: false, stderr: "first\nlast words", timeLimitSeconds: 2)
        #expect(died.kind == .workerDied && died.message.hasSuffix("last words"))
        #expect(died.apiError.status.code == 500)
    }

    @Test func theCallLine() {
        let message = FunctionCallExchange.callMessage(
            callId: 3, name: "sum", arguments: [line(#"{"$numberInt":"1"}"#)], user: line(#"{"id":"u"}"#),
            runAsSystem: false, remoteAddress: nil)
        #expect(message == line("""
            {"type":"call","id":3,"name":"sum","arguments":[{"$numberInt":"1"}],"user":{"id":"u"},
             "run_as_system":false,"request":{}}
            """))
    }
}
