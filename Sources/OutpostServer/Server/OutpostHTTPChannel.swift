import HummingbirdCore
import Logging
import NIOCore

/// Hummingbird's HTTP/1 channel with the WebSocket upgrade, plus Outpost's connection handlers: a
/// ``ConnectionDeadlineHandler`` next to the socket, so that every phase of a connection has a deadline, and a
/// ``FirstRequestErrorHandler`` that answers 400 to a first request that is not HTTP.
struct OutpostHTTPChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    let base: Base
    let headTimeout: TimeAmount
    let bodyTimeout: TimeAmount
    let idleTimeout: TimeAmount

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        do {
            try channel.pipeline.syncOperations.addHandler(
                ConnectionDeadlineHandler(headTimeout: headTimeout, bodyTimeout: bodyTimeout, idleTimeout: idleTimeout),
                position: .first)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            try channel.pipeline.syncOperations.addHandler(FirstRequestErrorHandler())
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
