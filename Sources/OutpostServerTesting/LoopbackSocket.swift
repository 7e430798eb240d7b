import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Plain TCP sockets on 127.0.0.1, for tests that need a peer no client library makes: one that stops reading, one
/// that never answers, a request whose redirect must not be followed. Outpost-only test support.
public enum LoopbackSocket {
    /// The IPv4 address 127.0.0.1:`port`.
    public static func address(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    /// A stream socket connected to 127.0.0.1:`port`; the caller closes it.
    public static func connect(port: Int) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestServerError("cannot make a socket: errno \(errno)") }
        var address = address(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let error = errno
            close(descriptor)
            throw TestServerError("cannot connect to 127.0.0.1:\(port): errno \(error)")
        }
        return descriptor
    }
}
