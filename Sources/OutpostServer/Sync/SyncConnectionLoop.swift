import Logging
import OutpostCore

/// Serves one WebSocket connection: parses each frame, answers pings, and routes session messages to their
/// sessions, each running on its own task. A malformed message or a connection-level error ends the whole
/// connection (after an `error` message with session 0); other connections are unaffected.
struct SyncConnectionLoop {
    let engine: SyncEngine
    let connection: SyncConnection
    let logger: Logger

    func run() async {
        let writer = FrameWriter(send: connection.send)
        let metrics = engine.metrics
        let inbound = InboundBudget(limit: engine.inboundLimit) { metrics.inboundQueued(by: $0) }
        defer { inbound.close() }
        await withTaskGroup(of: Void.self) { group in
            var sessions: [Int64: ServerSession] = [:]
            defer { for session in sessions.values { session.finish() } }
            do {
                for try await text in connection.inbound {
                    let message: ClientMessage
                    do throws(SyncProtocolError) {
                        // Uploads in the usual shape are read straight from their bytes; anything else (and
                        // anything wrong) the general way, which names the problem.
                        if let upload = UploadMessageReader.message(text) {
                            message = upload
                        } else {
                            message = try ClientMessage(text: text)
                        }
                    } catch {
                        await closeConnection(writer, error)
                        return
                    }
                    switch message {
                    case .ping(let timestamp):
                        await writer.send(.pong(timestamp: timestamp))
                    case .bind(let sessionId, _, _, _, _, _, _):
                        guard sessionId > 0, sessions[sessionId] == nil else {
                            await closeConnection(writer, SyncProtocolError(
                                sessionId > 0 ? .reuseOfSessionIdent : .badSessionIdent,
                                sessionId > 0 ? "Session \(sessionId) is already in use on this connection"
                                    : "Bad session identifier 0: sessions are numbered from 1"))
                            return
                        }
                        guard sessions.count < engine.maxSessionsPerConnection else {
                            await closeConnection(writer, SyncProtocolError(.limitsExceeded,
                                "Too many sessions on one connection (limit \(engine.maxSessionsPerConnection))"))
                            return
                        }
                        let session = ServerSession(id: sessionId, engine: engine, user: connection.user, writer: writer,
                                                    logger: logger, inbound: inbound)
                        sessions[sessionId] = session
                        group.addTask { await session.run() }
                        await session.enqueue(message, bytes: text.utf8.count)
                    default:
                        guard let session = sessions[message.session] else {
                            await closeConnection(writer, SyncProtocolError(.badSessionIdent,
                                "Bad session identifier \(message.session): no such session is bound on this connection"))
                            return
                        }
                        await session.enqueue(message, bytes: text.utf8.count)
                        if case .unbind = message { sessions[message.session] = nil }
                    }
                }
            } catch {
                logger.debug("connection ended: \(error)")
                if let frame = error as? SyncFrameError, case .frameTooLarge(let limit) = frame {
                    await closeConnection(writer, SyncProtocolError(.limitsExceeded, "Message exceeds the limit of \(limit) bytes"))
                } else if error is SyncFrameError {
                    await closeConnection(writer, SyncProtocolError(.badSyntax, "Bad syntax: binary frames are not part of the protocol"))
                }
            }
        }
    }

    private func closeConnection(_ writer: FrameWriter, _ error: SyncProtocolError) async {
        logger.warning("closing sync connection: \(error.message)")
        await engine.log(appId: connection.user.appId, kind: "sync", level: "warning",
                         "closed connection from \(connection.remoteAddress): \(error.message)")
        await writer.send(.error(SyncErrorInfo(session: 0, error: error)))
        await connection.close(1002, "sync protocol error \(error.code.rawValue)")
    }
}
