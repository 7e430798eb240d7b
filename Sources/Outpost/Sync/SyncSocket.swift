import Foundation
import HTTPTypes
import HummingbirdWSClient
import Logging
import NIOCore
import OutpostCore
import Synchronization

/// One WebSocket to the server's sync endpoint. Incoming messages, the close, and events the session injects
/// (local changes, ping ticks) arrive in one ordered stream, so the session handles them one at a time.
final class SyncSocket: Sendable {
    enum Event: Sendable {
        case message(String)
        case localChange
        case pingTick
        case closed(String?)
    }

    struct ConnectError: Error, CustomStringConvertible {
        let url: String
        let underlying: String
        /// The connection was not established within the connect timeout.
        let isTimeout: Bool
        var description: String { "Could not connect to \(url): \(underlying)" }
    }

    let events: AsyncStream<Event>
    /// Received text the session has not taken yet; the socket is not read while it is full (`InboundBudget`: a
    /// session applying a large bootstrap as it arrives is slower than the server sends it).
    let budget: InboundBudget
    /// The default budget: 8 MiB, what a session keeps of a held bootstrap in memory (a larger message is let in
    /// alone).
    static let inboundBudgetBytes = 8 << 20
    private let eventsContinuation: AsyncStream<Event>.Continuation
    private let outgoing: AsyncStream<String>.Continuation
    private let task: Task<Void, Never>
    private let closed = Mutex(false)
    /// The socket ended (the server closed it or it broke); `.closed` is in the stream, behind what came before it.
    private let ended: EndFlag
    /// A `.localChange` and a `.pingTick` waiting in the stream: at most one of each is queued (commits and ticks
    /// that come while one waits add nothing), so a busy session's stream grows with messages only.
    private let pending = Mutex((localChange: false, pingTick: false))

    private init(events: AsyncStream<Event>, eventsContinuation: AsyncStream<Event>.Continuation,
                 outgoing: AsyncStream<String>.Continuation, task: Task<Void, Never>, budget: InboundBudget,
                 ended: EndFlag) {
        self.events = events
        self.ended = ended
        self.budget = budget
        self.eventsContinuation = eventsContinuation
        self.outgoing = outgoing
        self.task = task
    }

    /// Opens the WebSocket with the access token and waits until it is open (or fails).
    static func connect(url: String, accessToken: String, timeout: Duration,
                        inboundBudget: Int = inboundBudgetBytes) async throws -> SyncSocket {
        let (events, eventsContinuation) = AsyncStream.makeStream(of: Event.self)
        let budget = InboundBudget(limit: inboundBudget)
        let (outStream, outgoing) = AsyncStream.makeStream(of: String.self)
        var headers = HTTPFields()
        headers[.authorization] = "Bearer \(accessToken)"
        let maxFrame = SyncProtocolLimits.maxMessageBytes + 1024
        let configuration = WebSocketClientConfiguration(maxFrameSize: maxFrame, additionalHeaders: headers)
        var logger = Logging.Logger(label: "outpost.sync.connection")
        logger.logLevel = .critical
        let opened = OpenSignal()
        let ended = EndFlag()
        let task = Task {
            do {
                let close = try await WebSocketClient.connect(url: url, configuration: configuration, logger: logger) {
                    inbound, outbound, _ in
                    opened.signal(nil)
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for try await message in inbound.messages(maxSize: maxFrame) {
                                if case .text(let text) = message {
                                    await budget.acquire(text.utf8.count)
                                    eventsContinuation.yield(.message(text))
                                }
                            }
                        }
                        group.addTask {
                            for await text in outStream { try await outbound.write(.text(text)) }
                        }
                        try await group.next()
                        group.cancelAll()
                    }
                }
                opened.signal("the server closed the connection")
                ended.set()
                eventsContinuation.yield(.closed(close.map { "\($0.closeCode) \($0.reason ?? "")" }))
            } catch {
                opened.signal("\(error)")
                ended.set()
                eventsContinuation.yield(.closed("\(error)"))
            }
            eventsContinuation.finish()
        }
        let failure = try await opened.wait(timeout: timeout)
        if let failure {
            budget.close()
            task.cancel()
            // A stop (suspend, log-out) while connecting ends the attempt at once, not when the socket opens.
            if Task.isCancelled { throw CancellationError() }
            throw ConnectError(url: url, underlying: failure, isTimeout: opened.timedOut)
        }
        return SyncSocket(events: events, eventsContinuation: eventsContinuation, outgoing: outgoing, task: task,
                          budget: budget, ended: ended)
    }

    func send(_ message: ClientMessage) {
        outgoing.yield(message.text)
    }

    /// Sends a message already written as text (queued uploads keep the text they were stored as).
    func send(text: String) {
        outgoing.yield(text)
    }

    /// Adds an event to the stream (a local change to upload, a ping tick); nothing when one of its kind waits
    /// there already.
    func inject(_ event: Event) {
        let queue = pending.withLock { pending -> Bool in
            switch event {
            case .localChange:
                defer { pending.localChange = true }
                return !pending.localChange
            case .pingTick:
                defer { pending.pingTick = true }
                return !pending.pingTick
            case .message, .closed:
                return true
            }
        }
        if queue { eventsContinuation.yield(event) }
    }

    /// The session took an injected event from the stream: the next one of its kind is queued again. Called before
    /// the session acts on it, so that a commit made meanwhile is not missed.
    func took(_ event: Event) {
        pending.withLock { pending in
            switch event {
            case .localChange: pending.localChange = false
            case .pingTick: pending.pingTick = false
            case .message, .closed: break
            }
        }
    }

    /// Whether the socket ended (the server closed it, or it broke): the session skips the local changes and ticks
    /// still queued before `.closed`, whose work would go nowhere, but still reads the messages the server sent
    /// before it closed (an error among them).
    var hasEnded: Bool { ended.isSet }

    /// Closes the socket; the stream ends with `.closed`.
    func close() {
        closed.withLock { $0 = true }
        budget.close()
        outgoing.finish()
        task.cancel()
    }

    /// Whether `close()` was called.
    var isClosed: Bool { closed.withLock { $0 } }
}

/// Set once, when the socket ends.
final class EndFlag: Sendable {
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}

/// A one-shot signal: nil when the socket opened, a reason when it failed first.
final class OpenSignal: @unchecked Sendable {
    private let lock = NSLock()
    private var result: String??
    private var continuation: CheckedContinuation<String?, Never>?
    private var didTimeOut = false

    /// Whether the timeout of ``wait(timeout:)`` came first.
    var timedOut: Bool { lock.withLock { didTimeOut } }

    func signal(_ failure: String?, timedOut: Bool = false) {
        let c: CheckedContinuation<String?, Never>? = lock.withLock {
            guard result == nil else { return nil }
            result = .some(failure)
            didTimeOut = timedOut
            defer { continuation = nil }
            return continuation
        }
        c?.resume(returning: failure)
    }

    /// The outcome: nil when the socket opened first; a reason when it failed, timed out or the waiting task was
    /// cancelled first.
    func wait(timeout: Duration) async throws -> String? {
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            self?.signal("timed out after \(timeout)", timedOut: true)
        }
        defer { timer.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { c in
                let now: String?? = lock.withLock {
                    if let result { return result }
                    continuation = c
                    return nil
                }
                if let now { c.resume(returning: now) }
            }
        } onCancel: {
            self.signal("cancelled")
        }
    }
}
