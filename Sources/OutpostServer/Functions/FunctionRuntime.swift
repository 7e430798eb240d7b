import Foundation
import Logging
import OutpostCore

/// Runs an app's functions in a pool of Node.js worker processes: at most `workers` at once, one call per worker,
/// up to `max_queued_calls` waiting, each call under the time limit (its worker is killed past it) and each worker
/// under the memory limit (V8's `--max-old-space-size`). A worker that died or was killed is replaced on the next
/// call. Workers start on the first call; ``shutdown()`` ends them.
public actor FunctionRuntime {
    /// What the admin console shows about the runtime.
    public struct Status: Sendable, Hashable {
        public var available: Bool
        /// `process.version` of the running Node.js, once a worker has started.
        public var node: String?
        /// Why functions cannot run (no Node.js, no worker script), when they cannot.
        public var problem: String?
        public var workers: Int
        public var busyWorkers: Int
        public var queuedCalls: Int
    }

    /// One finished call.
    struct Outcome: Sendable {
        /// The result in canonical Extended JSON, or why there is none.
        var result: Result<JSONValue, FunctionCallError>
        var logs: [(level: String, message: String)]
        var droppedLogLines: Int
        var duration: Duration
    }

    typealias ServiceHandler = @Sendable (FunctionCallExchange.ServiceRequest) async -> Result<JSONValue, APIError>

    let functions: AppDefinition.Functions
    let settings: AppDefinition.Runtime
    private let initMessage: JSONValue
    private let launch: Result<(node: URL, script: URL), FunctionCallError>
    private var idle: [FunctionWorkerProcess] = []
    private var live = 0
    private var waiters: [CheckedContinuation<FunctionWorkerProcess?, Never>] = []
    private var nodeVersion: String?
    private var nextCallId: Int64 = 1
    private var isShutDown = false

    public init(app: AppDefinition) {
        functions = app.functions
        settings = app.functions.runtime
        launch = Self.locate(settings)
        var definitions: [String: JSONValue] = [:]
        for definition in functions.definitions {
            definitions[definition.name] = .object([
                "source": .string(definition.source), "private": .bool(definition.isPrivate),
                "run_as_system": .bool(definition.runAsSystem),
            ])
        }
        initMessage = .object([
            "type": .string("init"), "functions": .object(definitions), "values": .object(functions.values),
            "app": .object(["id": .string(app.appId), "name": .string(app.name)]),
            "environment": .object(["tag": .string("")]), "data_sources": .array([.string("mongodb-atlas")]),
            "allow_network": .bool(settings.allowNetwork),
        ])
    }

    public var status: Status {
        var problem: String?
        if case .failure(let error) = launch { problem = error.message }
        return Status(available: problem == nil, node: nodeVersion, problem: problem, workers: settings.workers,
                      busyWorkers: live - idle.count, queuedCalls: waiters.count)
    }

    /// Ends every worker; calls after this fail.
    public func shutdown() {
        isShutDown = true
        for worker in idle { worker.kill(.shutdown) }
        idle = []
        for waiter in waiters { waiter.resume(returning: nil) }
        waiters = []
    }

    /// Runs one call to completion: never throws, never leaves a worker stuck.
    func call(name: String, arguments: [JSONValue], user: JSONValue, runAsSystem: Bool, remoteAddress: String?,
              services: ServiceHandler) async -> Outcome
    {
        let start = ContinuousClock.now
        let callId = nextCallId
        nextCallId += 1
        var exchange = FunctionCallExchange(callId: callId, name: name, maxLogLines: settings.maxLogLinesPerCall)
        func outcome(_ result: Result<JSONValue, FunctionCallError>) -> Outcome {
            Outcome(result: result, logs: exchange.logs.map { ($0.level, $0.message) },
                    droppedLogLines: exchange.droppedLogLines, duration: ContinuousClock.now - start)
        }
        let worker: FunctionWorkerProcess
        do {
            worker = try await checkout()
        } catch {
            return outcome(.failure(error as? FunctionCallError ?? FunctionCallError(.workerDied, "\(error)")))
        }
        let message = FunctionCallExchange.callMessage(
            callId: callId, name: name, arguments: arguments, user: user, runAsSystem: runAsSystem,
            remoteAddress: remoteAddress)
        let limit = settings.timeLimitSeconds
        let deadline = Task {
            try await Task.sleep(for: .seconds(limit))
            worker.kill(.timeLimit)
        }
        let result: Result<JSONValue, FunctionCallError> = await withTaskCancellationHandler {
            guard worker.send(message) else {
                return .failure(exchange.workerEnded(killedFor: worker.killReason, outOfMemory: worker.diedOfMemory,
                                                     stderr: worker.stderrText, timeLimitSeconds: limit))
            }
            while let event = await worker.next() {
                switch event {
                case .message(let line):
                    switch exchange.receive(line) {
                    case .none: continue
                    case .service(let request):
                        let answer = await services(request)
                        worker.send(FunctionCallExchange.reply(to: request.request, answer))
                    case .finished(let result): return result
                    }
                case .ended:
                    break
                }
            }
            return .failure(exchange.workerEnded(killedFor: worker.killReason, outOfMemory: worker.diedOfMemory,
                                                 stderr: worker.stderrText, timeLimitSeconds: limit))
        } onCancel: {
            worker.kill(.cancelled)
        }
        deadline.cancel()
        checkin(worker, reusable: worker.killReason == nil && worker.isRunning && exchange.isFinished)
        return outcome(result)
    }

    // MARK: The pool

    private func checkout() async throws -> FunctionWorkerProcess {
        while true {
            guard !isShutDown else { throw FunctionCallError(.workerDied, "the server is shutting down") }
            if case .failure(let error) = launch { throw error }
            if let worker = idle.popLast() {
                if worker.isRunning { return worker }
                live -= 1
                continue
            }
            if live < settings.workers {
                live += 1
                do {
                    return try await start()
                } catch {
                    live -= 1
                    wakeOne()
                    throw error
                }
            }
            guard waiters.count < settings.maxQueuedCalls else {
                throw FunctionCallError(.busy, "all \(settings.workers) function workers are busy and "
                    + "\(settings.maxQueuedCalls) calls are waiting; try again shortly")
            }
            if let worker = await withCheckedContinuation({ waiters.append($0) }) { return worker }
        }
    }

    private func checkin(_ worker: FunctionWorkerProcess, reusable: Bool) {
        guard reusable, !isShutDown else {
            worker.kill(.shutdown)
            live -= 1
            wakeOne()  // a waiter may start a new worker in its place
            return
        }
        if !waiters.isEmpty {
            waiters.removeFirst().resume(returning: worker)
        } else {
            idle.append(worker)
        }
    }

    private func wakeOne() {
        if !waiters.isEmpty { waiters.removeFirst().resume(returning: nil) }
    }

    /// Starts a worker and waits for its `ready` (at most 30 s).
    private func start() async throws -> FunctionWorkerProcess {
        guard case .success(let paths) = launch else { throw FunctionCallError(.runtimeUnavailable, "no runtime") }
        let worker: FunctionWorkerProcess
        do {
            worker = try FunctionWorkerProcess(node: paths.node, script: paths.script, memoryLimitMB: settings.memoryLimitMB)
        } catch {
            throw FunctionCallError(.runtimeUnavailable, "cannot start \(paths.node.path): \(error)")
        }
        let watchdog = Task {
            try await Task.sleep(for: .seconds(30))
            worker.kill(.timeLimit)
        }
        defer { watchdog.cancel() }
        guard worker.send(initMessage) else {
            throw FunctionCallError(.runtimeUnavailable, "the function worker did not start: \(worker.stderrText)")
        }
        while let event = await worker.next() {
            guard case .message(let message) = event else { break }
            if case .object(let fields) = message, fields["type"] == .string("ready") {
                if case .string(let version)? = fields["node"] { nodeVersion = version }
                return worker
            }
        }
        worker.kill(.protocolViolation)
        throw FunctionCallError(.runtimeUnavailable, "the function worker did not start: "
            + (worker.stderrText.isEmpty ? "it ended without a word" : worker.stderrText))
    }

    // MARK: Finding Node.js

    /// The Node.js executable and the worker script, or why functions cannot run here.
    static func locate(_ settings: AppDefinition.Runtime) -> Result<(node: URL, script: URL), FunctionCallError> {
        guard let script = Bundle.module.url(forResource: "function-worker", withExtension: "js", subdirectory: "Runtime")
        else {
            return .failure(FunctionCallError(.runtimeUnavailable, "the function worker script is missing from "
                + "\(Bundle.module.bundlePath); ship the OutpostServer resource bundle beside the executable"))
        }
        let configured = settings.node ?? ProcessInfo.processInfo.environment["OUTPOST_NODE"]
        let candidates = configured.map { [$0] } ?? ["node", "nodejs"]
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":")
        for candidate in candidates {
            let files = candidate.contains("/") ? [candidate] : path.map { "\($0)/\(candidate)" }
            if let file = files.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) {
                return .success((URL(fileURLWithPath: file), script))
            }
        }
        return .failure(FunctionCallError(.runtimeUnavailable, "functions are configured but no JavaScript runtime was "
            + "found (looked for \(candidates.joined(separator: " and ")) on the PATH): install Node.js 18 or later "
            + "(Debian: apt-get install nodejs), or set functions_runtime.node or OUTPOST_NODE"))
    }

    /// Logs why functions cannot run, once at start-up; the rest of the server runs either way.
    func reportAvailability(logger: Logger) -> FunctionCallError? {
        guard case .failure(let error) = launch else { return nil }
        logger.error("\(error.message)")
        return error
    }
}
