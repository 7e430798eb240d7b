import Foundation
import HTTPTypes
import HummingbirdWSClient
import Logging
import NIOCore
import OutpostCore

/// A protocol-level sync client for tests: it speaks the sync protocol's messages over a real WebSocket, without
/// any client database. Tests send ``ClientMessage``s and read ``ServerMessage``s one by one.
///
/// ```swift
/// let client = try await SyncTestClient.connect(url: server.syncURL(appId: app), accessToken: token)
/// try await client.send(.bind(session: 1, mode: .flexible, partition: nil, fileIdent: nil, salt: nil, cursor: .start,
///                             subscriptions: nil))
/// let ident = try await client.next()
/// ```
public final class SyncTestClient: ServerMessageReceiving, Sendable {
    private let inbox: Inbox
    private let outgoing: AsyncStream<Outgoing>.Continuation
    private let task: Task<Void, Never>

    enum Outgoing: Sendable {
        case text(String)
        case binary([UInt8])
    }

    /// Errors of the test client itself.
    public enum ClientError: Error, Sendable, CustomStringConvertible {
        case timeout(Duration)
        case closed(String?)
        case unexpected(String)

        public var description: String {
            switch self {
            case .timeout(let d): "no message from the server within \(d)"
            case .closed(let reason): "the connection is closed" + (reason.map { ": \($0)" } ?? "")
            case .unexpected(let text): "unexpected message: \(text)"
            }
        }
    }

    private init(inbox: Inbox, outgoing: AsyncStream<Outgoing>.Continuation, task: Task<Void, Never>) {
        self.inbox = inbox
        self.outgoing = outgoing
        self.task = task
    }

    /// Connects to a sync URL (`ws://127.0.0.1:<port>/api/client/v2.0/app/<app>/realm-sync`) with an access token
    /// in the `Authorization` header, and waits until the WebSocket is open.
    public static func connect(url: String, accessToken: String?, maxFrameSize: Int = 32 * 1024 * 1024) async throws -> SyncTestClient {
        let inbox = Inbox()
        let (stream, continuation) = AsyncStream.makeStream(of: Outgoing.self)
        var headers = HTTPFields()
        if let accessToken { headers[.authorization] = "Bearer \(accessToken)" }
        let configuration = WebSocketClientConfiguration(maxFrameSize: maxFrameSize, additionalHeaders: headers)
        let logger = Logger(label: "outpost.test-client")
        let task = Task {
            do {
                let close = try await WebSocketClient.connect(url: url, configuration: configuration, logger: logger) {
                    inbound, outbound, _ in
                    await inbox.opened()
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for try await message in inbound.messages(maxSize: maxFrameSize) {
                                if case .text(let text) = message { await inbox.received(text, at: .now) }
                            }
                        }
                        group.addTask {
                            for await item in stream {
                                switch item {
                                case .text(let text): try await outbound.write(.text(text))
                                case .binary(let bytes): try await outbound.write(.binary(ByteBuffer(bytes: bytes)))
                                }
                            }
                        }
                        try await group.next()
                        group.cancelAll()
                    }
                }
                await inbox.closed(close.map { "\($0.closeCode) \($0.reason ?? "")" })
            } catch {
                await inbox.closed("\(error)")
            }
        }
        try await inbox.waitUntilOpen()
        return SyncTestClient(inbox: inbox, outgoing: continuation, task: task)
    }

    /// Sends one protocol message.
    public func send(_ message: ClientMessage) {
        outgoing.yield(.text(message.text))
    }

    /// Sends raw text (for malformed-message tests).
    public func sendRaw(_ text: String) {
        outgoing.yield(.text(text))
    }

    /// Sends a binary frame (which the protocol does not allow).
    public func sendBinary(_ bytes: [UInt8]) {
        outgoing.yield(.binary(bytes))
    }

    /// The next message from the server.
    public func next(timeout: Duration = .seconds(30)) async throws -> ServerMessage {
        let text = try await inbox.next(timeout: timeout)
        return try ServerMessage.decode(text)
    }


    /// The next message from the server and when its frame arrived (before it was decoded): for latency
    /// measurements that should not include the test client's own decoding.
    public func nextWithArrival(timeout: Duration = .seconds(30)) async throws -> (message: ServerMessage, arrival: ContinuousClock.Instant) {
        let frame = try await inbox.nextFrame(timeout: timeout)
        return (try ServerMessage.decode(frame.text), frame.arrival)
    }

    /// Waits until the server closes the connection; returns the close reason.
    public func waitForClose(timeout: Duration = .seconds(30)) async throws -> String? {
        try await inbox.waitForClose(timeout: timeout)
    }

    /// Closes the connection.
    public func close() async {
        outgoing.finish()
        task.cancel()
        _ = await task.value
    }
}
