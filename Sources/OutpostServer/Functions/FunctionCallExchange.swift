import Foundation
import OutpostCore

/// The server's side of one call's conversation with a worker, as a pure state machine: the worker's messages go
/// in, what to do comes out (answer a service request, finish). No process, clock or storage here, so each path
/// is tested as a transcript (FunctionCallExchangeTests).
///
/// The worker protocol is in docs/functions.md: the server sends `call`; the worker answers with `log` and
/// `service` lines, then one `done`.
struct FunctionCallExchange: Sendable {
    /// A `context.services.get("mongodb-atlas")…` operation the function asked for.
    struct ServiceRequest: Sendable, Hashable {
        var request: Int64
        var service: String
        var database: String
        var collection: String
        var action: String
        var body: [String: JSONValue]
        /// Run without rules (the running function is `run_as_system`, or the call was made as the system user).
        var runAsSystem: Bool
    }

    struct LogLine: Sendable, Hashable {
        var level: String
        var message: String
    }

    enum Step: Sendable, Hashable {
        /// Nothing to do; read the next message.
        case none
        /// Perform it and send `reply(to:)`'s answer.
        case service(ServiceRequest)
        /// The call is over: the result in canonical Extended JSON, or why not.
        case finished(Result<JSONValue, FunctionCallError>)
    }

    let callId: Int64
    let name: String
    let maxLogLines: Int
    /// The longest log message kept, in UTF-8 bytes; longer ones are cut.
    static let maxLogMessageBytes = 8 * 1024

    private(set) var logs: [LogLine] = []
    private(set) var droppedLogLines = 0
    private(set) var isFinished = false

    init(callId: Int64, name: String, maxLogLines: Int) {
        self.callId = callId
        self.name = name
        self.maxLogLines = maxLogLines
    }

    /// The `call` line that starts it.
    static func callMessage(
        callId: Int64, name: String, arguments: [JSONValue], user: JSONValue, runAsSystem: Bool, remoteAddress: String?
    ) -> JSONValue {
        var request: [String: JSONValue] = [:]
        if let remoteAddress { request["remoteIPAddress"] = .string(remoteAddress) }
        return .object([
            "type": .string("call"), "id": .int(callId), "name": .string(name), "arguments": .array(arguments),
            "user": user, "run_as_system": .bool(runAsSystem), "request": .object(request),
        ])
    }

    /// What a worker's line means for this call.
    mutating func receive(_ message: JSONValue) -> Step {
        guard !isFinished, case .object(let fields) = message, case .string(let type)? = fields["type"] else {
            return isFinished ? .none : finish(.failure(Self.violation("a line that is not a message")))
        }
        switch type {
        case "log":
            guard Self.int(fields["call"]) == callId else { return .none }
            guard logs.count < maxLogLines else {
                droppedLogLines += 1
                return .none
            }
            var text = Self.string(fields["message"]) ?? ""
            if text.utf8.count > Self.maxLogMessageBytes {
                text = String(decoding: text.utf8.prefix(Self.maxLogMessageBytes), as: UTF8.self) + "…"
            }
            logs.append(LogLine(level: Self.string(fields["level"]) ?? "log", message: text))
            return .none
        case "service":
            guard Self.int(fields["call"]) == callId else { return .none }
            guard let request = Self.int(fields["request"]), let action = Self.string(fields["action"]),
                let collection = Self.string(fields["collection"]), case .object(let body)? = fields["body"] ?? .object([:])
            else { return finish(.failure(Self.violation("a service request without request, action or collection"))) }
            return .service(ServiceRequest(
                request: request, service: Self.string(fields["service"]) ?? "mongodb-atlas",
                database: Self.string(fields["database"]) ?? "", collection: collection, action: action, body: body,
                runAsSystem: fields["run_as_system"] == .bool(true)))
        case "done":
            guard Self.int(fields["id"]) == callId else { return .none }
            if let result = fields["result"] { return finish(.success(result)) }
            guard case .object(let error)? = fields["error"] else { return finish(.success(.null)) }
            return finish(.failure(Self.error(from: error, name: name)))
        default:
            return .none  // `ready` and anything newer than this server: not about this call
        }
    }

    /// The call's error when its worker ended before `done`.
    mutating func workerEnded(killedFor reason: FunctionWorkerProcess.KillReason?, outOfMemory: Bool, stderr: String,
                              timeLimitSeconds: Double) -> FunctionCallError
    {
        isFinished = true
        switch reason {
        case .timeLimit:
            return FunctionCallError(.timeLimit, "function '\(name)' ran longer than the time limit of "
                + "\(Self.seconds(timeLimitSeconds)) and was stopped")
        case .cancelled:
            return FunctionCallError(.workerDied, "the call to function '\(name)' was cancelled")
        case .shutdown:
            return FunctionCallError(.workerDied, "the server is shutting down")
        case .protocolViolation, nil:
            if outOfMemory {
                return FunctionCallError(.memoryLimit, "function '\(name)' exceeded the memory limit and was stopped")
            }
            let detail = stderr.split(separator: "\n").last.map { ": \($0)" } ?? ""
            return FunctionCallError(.workerDied, "the worker running function '\(name)' ended unexpectedly\(detail)")
        }
    }

    /// The `reply` line for a service request.
    static func reply(to request: Int64, _ result: Result<JSONValue, APIError>) -> JSONValue {
        switch result {
        case .success(let value):
            return .object(["type": .string("reply"), "request": .int(request), "result": value])
        case .failure(let error):
            return .object([
                "type": .string("reply"), "request": .int(request),
                "error": .object(["message": .string(error.message), "code": .string(error.errorCode)]),
            ])
        }
    }

    private mutating func finish(_ result: Result<JSONValue, FunctionCallError>) -> Step {
        isFinished = true
        return .finished(result)
    }

    private static func error(from fields: [String: JSONValue], name: String) -> FunctionCallError {
        let message = string(fields["message"]) ?? "function '\(name)' failed"
        switch string(fields["name"]) {
        case "SyntaxError": return FunctionCallError(.syntaxError, "function '\(name)' does not compile: \(message)")
        case "FunctionInvalid": return FunctionCallError(.invalid, message)
        case "FunctionNotFound": return FunctionCallError(.notFound, message)
        default: return FunctionCallError(.threw, message)
        }
    }

    private static func violation(_ what: String) -> FunctionCallError {
        FunctionCallError(.workerDied, "the function worker sent \(what)")
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }

    private static func int(_ value: JSONValue?) -> Int64? {
        if case .int(let n)? = value { return n }
        if case .double(let x)? = value, x == x.rounded(), abs(x) < 1e15 { return Int64(x) }
        return nil
    }

    private static func string(_ value: JSONValue?) -> String? {
        if case .string(let s)? = value { return s }
        return nil
    }
}
