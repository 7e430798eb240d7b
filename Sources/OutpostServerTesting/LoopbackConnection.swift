import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A raw TCP connection to 127.0.0.1, for tests that send what no HTTP or WebSocket client sends (a request cut
/// short, bytes that are not HTTP, an unmasked frame) and wait for the server to answer or close. Reads never block
/// a thread: they poll and sleep, so a test waiting for a close does not starve the in-process server.
/// Outpost-only test support.
public final class LoopbackConnection: @unchecked Sendable {
    // @unchecked Sendable: the descriptor is used by one task at a time (the test that owns the connection).
    private let descriptor: Int32
    private var isClosed = false

    /// Connects to 127.0.0.1:`port`.
    public init(port: Int) throws {
        descriptor = try LoopbackSocket.connect(port: port)
    }

    deinit {
        if !isClosed { Glibc.close(descriptor) }
    }

    /// Writes all of `bytes` (false when the server has closed the connection).
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    /// Writes `text` as UTF-8.
    @discardableResult
    public func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Reads until the server closes the connection (end of file or reset) and returns everything read.
    ///
    /// - Parameter limit: a guard against a server that never closes: past it, the read throws.
    public func readUntilClosed(limit: Duration = .seconds(60)) async throws -> [UInt8] {
        var received: [UInt8] = []
        let deadline = ContinuousClock.now + limit
        while true {
            switch readAvailable(into: &received) {
            case .closed: return received
            case .open:
                guard ContinuousClock.now < deadline else {
                    throw TestServerError("the server did not close the connection within \(limit)")
                }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    /// Reads until `received` satisfies `isComplete` or the connection closes.
    public func read(
        until isComplete: ([UInt8]) -> Bool, limit: Duration = .seconds(60)
    ) async throws -> [UInt8] {
        var received: [UInt8] = []
        let deadline = ContinuousClock.now + limit
        while !isComplete(received) {
            if case .closed = readAvailable(into: &received) { return received }
            guard ContinuousClock.now < deadline else {
                throw TestServerError("the server did not answer within \(limit)")
            }
            if !isComplete(received) { try await Task.sleep(for: .milliseconds(20)) }
        }
        return received
    }

    /// Whether the server still has the connection open after `duration` (nothing it sends counts).
    public func staysOpen(for duration: Duration) async throws -> Bool {
        var received: [UInt8] = []
        let end = ContinuousClock.now + duration
        while ContinuousClock.now < end {
            if case .closed = readAvailable(into: &received) { return false }
            try await Task.sleep(for: .milliseconds(50))
        }
        return true
    }

    /// Closes the connection.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(descriptor)
    }

    private enum ReadState { case open, closed }

    /// Appends what can be read now without blocking.
    private func readAvailable(into received: inout [UInt8]) -> ReadState {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 0) > 0 else { return .open }
            let count = buffer.withUnsafeMutableBytes { Glibc.recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                received.append(contentsOf: buffer[0..<count])
            } else if count == 0 || errno != EINTR {
                return .closed
            }
        }
    }
}

extension [UInt8] {
    /// The bytes as text (for HTTP answers).
    public var text: String { String(decoding: self, as: UTF8.self) }
}
