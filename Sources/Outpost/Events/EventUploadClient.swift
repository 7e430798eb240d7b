import Foundation
import NIOCore
import NIOHTTP1
import OutpostCore

/// Sends an uploader's batches to `POST …/app/<appId>/events` for one upload pass, with the event user's access
/// token (refreshed once on a 401, as ``User/authorizedRequest(_:_:body:)``).
///
/// With the app's default transport and an `http://` base URL, batches go over ``connectionCount`` keep-alive
/// ``EventHTTPConnection``s in turn and up to ``pipelineDepth`` of them are in flight: the uploader reads and sends
/// the next batch while the server stores the current one, and the server reads one connection's batch while it
/// stores the other's (it answers the requests of one connection one after another). Otherwise (an `https://`
/// server, or an app with its own ``RLMNetworkTransport``) each batch goes through the app's transport
/// (`URLSession` by default), one at a time. Either way a batch's answer is checked as every client API answer
/// (``ClientAPI/result(of:method:url:)``), and a refusal that retrying cannot fix is thrown as a fatal `SyncError`.
final class EventUploadClient {
    /// A batch sent (or, through the app's transport, to be sent) whose answer has not been read.
    struct Pending {
        fileprivate let body: [UInt8]
        fileprivate let answer: EventLoopFuture<EventHTTPConnection.Response>?
        fileprivate let connection: Int
    }

    /// How many connections an upload pass uses (over ``EventHTTPConnection`` only).
    static let connectionCount = 2

    private let user: User
    private let url: String
    private let connectionURL: URL?
    private var connections: [EventHTTPConnection?] = Array(repeating: nil, count: EventUploadClient.connectionCount)
    private var nextConnection = 0

    /// How many batches may be in flight at once.
    let pipelineDepth: Int

    init(user: User) {
        self.user = user
        let api = user.appState.api
        url = api.url("events")
        if user.appState.configuration.transport == nil, let url = URL(string: url), EventHTTPConnection.supports(url) {
            connectionURL = url
            pipelineDepth = 2 * Self.connectionCount
        } else {
            connectionURL = nil
            pipelineDepth = 1
        }
    }

    /// Starts sending one batch: over the connection at once, or (through the app's transport) when its answer is
    /// awaited.
    func start(_ body: [UInt8]) async throws -> Pending {
        guard connectionURL != nil else { return Pending(body: body, answer: nil, connection: 0) }
        let token = try await user.accessToken()
        let connection = nextConnection
        nextConnection = (nextConnection + 1) % connections.count
        do {
            return Pending(body: body, answer: try await send(body, token: token, on: connection),
                           connection: connection)
        } catch let error as EventHTTPConnection.Failure {
            throw AppError(.httpRequestFailed, "cannot reach the server at \(url): \(error.description)")
        }
    }

    /// Waits for a batch's answer.
    ///
    /// - Throws: a fatal `SyncError` for a refusal that retrying cannot fix (the schema, or another 4xx but 429);
    ///   any other error (network, 5xx) is worth a retry.
    func finish(_ pending: Pending, partition: String) async throws {
        do {
            guard let answer = pending.answer else {
                _ = try await user.authorizedRequest(.POST, "events", bodyText: String(decoding: pending.body, as: UTF8.self))
                return
            }
            var response = try await answer.get()
            if response.status == 401 {
                let fresh = try await user.accessToken(forceRefresh: true)
                response = try await send(pending.body, token: fresh, on: pending.connection).get()
            }
            _ = try ClientAPI.result(of: RLMResponse(httpStatusCode: response.status, headers: response.headers,
                                                     body: response.body),
                                     method: .POST, url: url)
        } catch let error as AppError where error.serverErrorCode == "InvalidSchemaChange" {
            throw SyncError(.clientInternalError, error.message, protocolErrorCode: 225, isFatal: true)
        } catch let error as AppError where (400..<500).contains(error.httpStatusCode ?? 0) && error.httpStatusCode != 429 {
            throw SyncError(.clientInternalError, "The server refused events of '\(partition)': \(error.message)",
                            isFatal: true)
        } catch let error as EventHTTPConnection.Failure {
            throw AppError(.httpRequestFailed, "cannot reach the server at \(url): \(error.description)")
        }
    }

    /// Ends the pass: closes the connections (requests still in flight fail; their events stay in the shard).
    func close() {
        for connection in connections { connection?.close() }
        connections = connections.map { _ in nil }
    }

    private func send(_ body: [UInt8], token: String, on index: Int) async throws
        -> EventLoopFuture<EventHTTPConnection.Response>
    {
        if connections[index]?.isActive != true {
            connections[index]?.close()
            connections[index] = try await EventHTTPConnection.connect(to: connectionURL!,
                                                                       timeout: user.appState.api.timeout)
        }
        let path = URLComponents(string: url)?.percentEncodedPath ?? "/"
        return connections[index]!.send(
            method: .POST, path: path,
            headers: [("Accept", "application/json"), ("Content-Type", "application/json"),
                      ("Authorization", "Bearer \(token)")],
            body: body)
    }
}
